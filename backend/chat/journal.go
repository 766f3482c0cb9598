package chat

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/sweatpants-go/sweatpants/backend/elicit"
	"github.com/sweatpants-go/sweatpants/backend/tree"
)

// A turn is a durable coroutine: its code can be run again from the start
// at any time, and each primitive call it makes is answered from the record
// when the record has it. Calls are identified by their position: the n-th
// call of the turn is "<turn>-<n>", and the calls a tool makes are numbered
// within the tool's own call, "<turn>-<n>.<m>", so that a finished tool is
// skipped as one call on replay without shifting the numbers after it.

// callScope numbers the primitive calls of one turn or one tool call.
type callScope struct {
	prefix string
	mu     sync.Mutex
	n      int
}

type callScopeKey struct{}

func withCallScope(ctx context.Context, prefix string) context.Context {
	return context.WithValue(ctx, callScopeKey{}, &callScope{prefix: prefix})
}

// nextCall returns the id of the next primitive call made from ctx.
func nextCall(ctx context.Context) string {
	s, _ := ctx.Value(callScopeKey{}).(*callScope)
	if s == nil {
		panic("chat: primitive called outside a turn")
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

// lanes numbers the branches of a runtime.Together: the group takes one
// call id, "<turn>-<n>", and branch i numbers its own calls under
// "<turn>-<n>.<i>", so a replay finds each branch's calls however the
// branches were scheduled.
func lanes(ctx context.Context) func(int) context.Context {
	group := nextCall(ctx)
	return func(i int) context.Context {
		return withCallScope(ctx, group+"."+strconv.Itoa(i+1))
	}
}

// journal is what a turn recorded before, indexed for replay.
type journal struct {
	calls     map[string]tree.Node // call id → the node the call recorded
	responses map[string]tree.Node // elicit id → its answer
}

// journalOf indexes the nodes a turn recorded: the path after its user
// message.
func journalOf(nodes []tree.Node) journal {
	j := journal{calls: map[string]tree.Node{}, responses: map[string]tree.Node{}}
	for _, n := range nodes {
		switch {
		case n.Ref == "":
		case n.Kind == tree.ElicitResponse:
			j.responses[n.Ref] = n
		default:
			j.calls[n.Ref] = n
		}
	}
	return j
}

// NonDeterminismError is a replay that went another way than the record: the
// turn's code, run again, made a different call at the same position. The
// turn cannot go on, since its record no longer describes what the code does.
type NonDeterminismError struct {
	Call     string // the call's id
	Recorded string // what the record holds there
	Made     string // what the code made instead
}

func (e *NonDeterminismError) Error() string {
	return fmt.Sprintf("replay diverged at call %s: the record has %s, but the code now makes %s", e.Call, e.Recorded, e.Made)
}

// replayed looks call id up in the record. It returns the recorded node, or
// ok false when the call is new; a recorded call of another kind or with
// another request is a NonDeterminismError.
func (j journal) replayed(id string, kind tree.Kind, made string, same func(recorded tree.Node) bool) (tree.Node, bool, error) {
	n, ok := j.calls[id]
	if !ok {
		return tree.Node{}, false, nil
	}
	if n.Kind != kind || !same(n) {
		return n, true, &NonDeterminismError{Call: id, Recorded: describeCall(n), Made: made}
	}
	return n, true, nil
}

// describeCall words a recorded call for a NonDeterminismError.
func describeCall(n tree.Node) string {
	switch n.Kind {
	case tree.ElicitRequest:
		var req elicit.Request
		json.Unmarshal(n.Payload, &req)
		return fmt.Sprintf("elicit %s %q", req.Kind, req.Message)
	case tree.Notify:
		var p struct{ Message string }
		json.Unmarshal(n.Payload, &p)
		return fmt.Sprintf("notify %q", p.Message)
	case tree.ToolCall:
		var c ToolRecord
		json.Unmarshal(n.Payload, &c)
		return fmt.Sprintf("tool %s/%s", c.Agent, c.Tool)
	default:
		return string(n.Kind)
	}
}

// sameJSON reports whether a and b encode the same value.
func sameJSON(a, b json.RawMessage) bool {
	var va, vb any
	if json.Unmarshal(a, &va) != nil || json.Unmarshal(b, &vb) != nil {
		return bytes.Equal(a, b)
	}
	ea, _ := json.Marshal(va)
	eb, _ := json.Marshal(vb)
	return bytes.Equal(ea, eb)
}

// unfinishedTurn returns the index in path of the user message whose turn
// has not ended (no reply and no error after it), or -1.
func unfinishedTurn(path []tree.Node) int {
	for i := len(path) - 1; i >= 0; i-- {
		switch path[i].Kind {
		case tree.AssistantMessage, tree.TurnError, tree.Stopped:
			return -1
		case tree.UserMessage:
			return i
		}
	}
	return -1
}
