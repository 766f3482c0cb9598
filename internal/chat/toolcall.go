package chat

import (
	"context"

	"github.com/sweatpants-go/sweatpants/internal/tree"
)

// A program's tool call enters a conversation typed (Message.Call): the
// turn it starts reads the call from its context, not from the message's
// text, and hands its outcome back the same way, to be recorded on the
// reply (tree.Message.Outcome) and read by the program from the event
// stream's run.completed. Nothing in between is JSON inside chat text.
// Such a turn runs its tool and returns: its tool's record is written with
// its reply (held.go), so an assistant that runs a call acts on nothing
// after the tool but through the primitives, which write it first.

// callKey is the context key of a turn's toolCall.
type callKey struct{}

// toolCall is the call a turn runs, and the outcome it returned.
type toolCall struct {
	call    tree.Call
	outcome *tree.CallOutcome
}

// callOfLocked returns the tool call recorded on node id, the message that
// starts a turn, if it is one. c.mu is held.
func (c *conversation) callOfLocked(id int64) *tree.Call {
	n, ok := c.idx.Node(id)
	if !ok || n.Kind != tree.UserMessage {
		return nil
	}
	m, err := tree.Decode[tree.Message](n)
	if err != nil {
		return nil
	}
	return m.Call
}

// withCall gives the turn's context the call it runs, when it runs one.
func withCall(ctx context.Context, call *tree.Call) context.Context {
	if call == nil {
		return ctx
	}
	return context.WithValue(ctx, callKey{}, &toolCall{call: *call})
}

// CallOf returns the tool call the turn of ctx runs, when its message is
// one (Message.Call).
func CallOf(ctx context.Context) (tree.Call, bool) {
	tc, ok := ctx.Value(callKey{}).(*toolCall)
	if !ok {
		return tree.Call{}, false
	}
	return tc.call, true
}

// ReturnCall records out as the outcome of the tool call the turn of ctx
// runs, on the reply that ends the turn; nothing when it runs none.
func ReturnCall(ctx context.Context, out tree.CallOutcome) {
	if tc, ok := ctx.Value(callKey{}).(*toolCall); ok {
		tc.outcome = &out
	}
}

// outcomeOf is the outcome the turn of ctx returned for its call, if any.
func outcomeOf(ctx context.Context) *tree.CallOutcome {
	if tc, ok := ctx.Value(callKey{}).(*toolCall); ok {
		return tc.outcome
	}
	return nil
}
