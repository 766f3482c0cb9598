package agenttest

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"

	"github.com/sweatpants-go/sweatpants/internal/primitive"
)

// A block tried in process (agents.Fork) runs as it is; going back from it
// puts the agents' state back as it was when the block began, as on the
// server, and the transcript says what was tried and decided.

// fork runs block b and keeps the state it began from under the fork's id.
func (r *run) fork(ctx context.Context, b primitive.ForkBlock) (string, error) {
	r.mu.Lock()
	r.forks = append(r.forks, maps.Clone(r.states))
	id := fmt.Sprint(len(r.forks))
	r.mu.Unlock()
	r.line(fmt.Sprintf("fork %q", clip(b.Label)))
	return id, b.Run(ctx)
}

func (r *run) forkEnd(_ context.Context, d primitive.ForkDecision) (struct{}, error) {
	if d.Forward {
		r.line(fmt.Sprintf("fork %q: kept", clip(d.Label)))
		return struct{}{}, nil
	}
	var i int
	fmt.Sscan(d.Fork, &i)
	r.mu.Lock()
	if i >= 1 && i <= len(r.forks) {
		r.states = maps.Clone(r.forks[i-1])
	}
	r.mu.Unlock()
	r.line(fmt.Sprintf("fork %q: back", clip(d.Label)))
	return struct{}{}, nil
}

// forkStates are the agents' states as each tried block began, by fork.
type forkStates = []map[primitive.StateKey]json.RawMessage
