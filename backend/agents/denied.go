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
}

func (e *DeniedError) Error() string {
	return fmt.Sprintf("the call of %s was denied: %s", e.Tool, e.Why)
}

// reasonKey holds, for the tool calls a Loop makes, the text of the model's
// reply that made them (ToolCall.Reason).
type reasonKey struct{}

// withReason returns ctx with the model's reason for the tool calls made
// from it.
func withReason(ctx context.Context, reason string) context.Context {
	if reason == "" && reasonOf(ctx) == "" {
		return ctx
	}
	return context.WithValue(ctx, reasonKey{}, reason)
}

// reasonOf is the model's reason for the tool calls made from ctx.
func reasonOf(ctx context.Context) string {
	r, _ := ctx.Value(reasonKey{}).(string)
	return r
}

// modelCallKey holds, for a tool call a Loop makes, the id the model gave
// the call (ToolCall.ModelCall).
type modelCallKey struct{}

// withModelCall returns ctx with the model's id for the tool call made
// from it; "" for the calls a tool makes itself.
func withModelCall(ctx context.Context, id string) context.Context {
	if id == "" && modelCallOf(ctx) == "" {
		return ctx
	}
	return context.WithValue(ctx, modelCallKey{}, id)
}

// modelCallOf is the model's id for the tool call made from ctx.
func modelCallOf(ctx context.Context) string {
	id, _ := ctx.Value(modelCallKey{}).(string)
	return id
}
