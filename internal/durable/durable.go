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
	logs   int // log lines written, numbered apart (NextLog)
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
	return s.prefix + s.sep() + strconv.Itoa(s.n)
}

// Peek returns the id NextCall would return next from ctx, without taking
// it: the place among the turn's calls of something the turn does that
// is not a call of its own (a read of its state, package state).
func Peek(ctx context.Context) string {
	s, _ := ctx.Value(scopeKey{}).(*scope)
	if s == nil {
		panic("durable: primitive called outside a turn")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.prefix + s.sep() + strconv.Itoa(s.n+1)
}

// sep is what joins the scope's prefix and a number: "-" after a turn's
// id, "." after a call's.
func (s *scope) sep() string {
	if strings.Contains(s.prefix, "-") {
		return "."
	}
	return "-"
}

// NextLog returns the id of the next log line written from ctx:
// "<turn>-log<n>", or "<call>.log<n>" within a call. Log lines are numbered
// in a lane of their own, not among the calls: a log line added to an
// agent's code, or the lines of a turn recorded before log lines were
// recorded at all, shift no call's id, so every recorded turn still
// replays; and a replayed line is found by its id and not written twice.
// It panics outside a scope, as NextCall does.
func NextLog(ctx context.Context) string {
	s, _ := ctx.Value(scopeKey{}).(*scope)
	if s == nil {
		panic("durable: log written outside a turn")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.logs++
	return s.prefix + s.sep() + "log" + strconv.Itoa(s.logs)
}

// ScopeOf returns the scope a call id (or a log line's) was numbered in:
// the turn's id for "<turn>-<n>", the call's id for "<call>.<m>". Calls of
// one scope are made one after another, so a call's nearest recorded
// predecessor of its own scope is the one its code made before it.
func ScopeOf(id string) string {
	if i := strings.LastIndexAny(id, "-."); i >= 0 {
		return id[:i]
	}
	return ""
}

// Lanes numbers the branches of a turn.Together: the group takes one call
// id, "<turn>-<n>", and branch i numbers its own calls under
// "<turn>-<n>.<i>", so a replay finds each branch's calls however the
// branches were scheduled.
func Lanes(ctx context.Context) func(int) context.Context {
	group := NextCall(ctx)
	return func(i int) context.Context {
		return WithScope(ctx, group+"."+strconv.Itoa(i+1))
	}
}
