package agents

import (
	"context"
	"fmt"
)

// DeniedError is a tool call that was not allowed to run: a rule denied
// it, the user did, or nobody was there to approve it. The call did not
// run. A Loop hands it to the model as the call's result, so the model
// can go on without it, and offers the tool no more in that turn when the
// denial is Final.
type DeniedError struct {
	Tool string
	// Why says who denied the call and why, for the model ("the user
	// denied it: not this week").
	Why string
	// Final says that nothing can allow the call in this turn (a finalDeny
	// rule).
	Final bool
	// Expired says the call was asked about and nobody answered before
	// the approval expired: it fails closed, as a deny.
	Expired bool
}

func (e *DeniedError) Error() string {
	return fmt.Sprintf("the call of %s was denied: %s", e.Tool, e.Why)
}

// madeBy is, for a tool call a Loop makes, what of the model's reply made
// it: the reply's text, why the model makes the call (ToolCall.Reason),
// and the id the model gave the call (ToolCall.ModelCall). The calls a
// tool makes itself have neither.
type madeBy struct {
	Reason string
	ID     string
}

type madeByKey struct{}

// withMadeBy returns ctx with m as what made the tool call made from it.
func withMadeBy(ctx context.Context, m madeBy) context.Context {
	if m == (madeBy{}) && madeByOf(ctx) == (madeBy{}) {
		return ctx
	}
	return context.WithValue(ctx, madeByKey{}, m)
}

// madeByOf is what made the tool call made from ctx.
func madeByOf(ctx context.Context) madeBy {
	m, _ := ctx.Value(madeByKey{}).(madeBy)
	return m
}
