// Package durable runs an agent's turn as a durable coroutine: its code can
// be run again from the start at any time — after a restart, or when the
// user comes back to a branch — and each primitive call it makes is answered
// from the record when the record has it, and run and recorded when it does
// not.
//
// Calls are identified by their position: the n-th call of a turn is
// "<turn>-<n>", and the calls a tool makes are numbered within the tool's own
// call, "<turn>-<n>.<m>", so that a finished tool is skipped as one call on
// replay without shifting the numbers after it. A recorded call is a node
// of the conversation's tree whose Ref is the call's id.
//
// The package holds no state of a conversation and does no I/O: the caller
// says how a call runs and how its record is written.
package durable

import (
	"context"
	"strconv"
	"strings"
	"sync"
)

// scope numbers the primitive calls of one turn or one tool call.
type scope struct {
	prefix string
	mu     sync.Mutex
	n      int
}

type scopeKey struct{}

// WithScope returns ctx with a new numbering of calls under prefix: a
// turn's id for its own calls, or a call's id for the calls made within it.
func WithScope(ctx context.Context, prefix string) context.Context {
	return context.WithValue(ctx, scopeKey{}, &scope{prefix: prefix})
}

// NextCall returns the id of the next primitive call made from ctx. It
// panics outside a scope: a primitive called outside a turn is a
// programming error.
func NextCall(ctx context.Context) string {
	s, _ := ctx.Value(scopeKey{}).(*scope)
	if s == nil {
		panic("durable: primitive called outside a turn")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.n++
	sep := "-"
	if strings.Contains(s.prefix, "-") {
		sep = "."
	}
	return s.prefix + sep + strconv.Itoa(s.n)
}

// Lanes numbers the branches of a runtime.Together: the group takes one call
// id, "<turn>-<n>", and branch i numbers its own calls under
// "<turn>-<n>.<i>", so a replay finds each branch's calls however the
// branches were scheduled.
func Lanes(ctx context.Context) func(int) context.Context {
	group := NextCall(ctx)
	return func(i int) context.Context {
		return WithScope(ctx, group+"."+strconv.Itoa(i+1))
	}
}
