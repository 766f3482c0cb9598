package agents

import (
	"context"
	"errors"

	"github.com/sweatpants-go/sweatpants/internal/primitive"
)

// Tried is a block of agent code tried on a child branch (Fork): what it
// returned, and the choice of keeping what it did or going back.
type Tried[R any] struct {
	// Value is what the block returned.
	Value R
	id    string // the fork's call id; empty outside a turn
	label string
	done  bool
}

// Fork tries block on a child branch of the conversation: "try this
// approach; if it fails, go back and try another". The block starts from
// the state where the fork is made (agents.State), and everything it
// does — its tools, its questions, its changes of state — is recorded on
// the child branch, which the user sees as the conversation while it runs.
// Once it returns, the code decides: Forward keeps the child branch as the
// flow, its state and its work with it; Back goes on from where the block
// began, as if it had not run, and the tried branch stays in the tree,
// shown in the inspector as tried and abandoned and recoverable from the
// reflog. A block left undecided stays the flow, as if kept.
//
// label says what is tried, in words for the user ("a cheaper flight").
// The error is the block's; a Tried is returned with it whenever the block
// ran, so that a failed attempt can be gone back from. A replayed turn
// tries the block again from its record, without running its tools again,
// and takes the same decision.
func Fork[R any](ctx context.Context, label string, block func(ctx context.Context) (R, error)) (*Tried[R], error) {
	t := &Tried[R]{label: label}
	run := func(ctx context.Context) error {
		var err error
		t.Value, err = block(ctx)
		return err
	}
	if !primitive.Installed(ctx, primitive.ForkAPI) {
		return t, run(ctx)
	}
	id, err := primitive.ForkAPI.Call(ctx, primitive.ForkBlock{Label: label, Run: run})
	if id == "" {
		return nil, err
	}
	t.id = id
	return t, err
}

// Forward keeps what the tried block did: the flow goes on from the end of
// the child branch, recorded as kept.
func (t *Tried[R]) Forward(ctx context.Context) error { return t.decide(ctx, true) }

// Back leaves what the tried block did: the flow goes on from where the
// block began, with the state as it was there, and the model no longer
// sees what the block did. The going back is in the reflog.
func (t *Tried[R]) Back(ctx context.Context) error { return t.decide(ctx, false) }

func (t *Tried[R]) decide(ctx context.Context, forward bool) error {
	if t.done {
		return errors.New("agents: a tried block was already kept or gone back from")
	}
	t.done = true
	if t.id == "" {
		return nil
	}
	_, err := primitive.ForkEndAPI.Call(ctx, primitive.ForkDecision{Fork: t.id, Label: t.label, Forward: forward})
	return err
}
