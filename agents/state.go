package agents

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/sweatpants-go/sweatpants/internal/primitive"
)

// State is a value an agent keeps across turns, of type T: a trip plan, a
// cart. It belongs to its agent and is reached only through the agent's
// code, its tools above all. Every change is recorded in the conversation
// as a node, and the state at a point of the conversation is the last
// change on the branch that leads there: edit an earlier message, switch
// branches, rewind or recover one, and the agent's state is that branch's.
// A replayed turn reads what it read the first time and records nothing
// again.
type State[T any] struct {
	agent   *Agent
	name    string
	initial T
}

// NewState declares agent's state named name, initially initial. Declare
// it once, at start-up, beside the agent's tools.
func NewState[T any](agent *Agent, name string, initial T) *State[T] {
	return &State[T]{agent: agent, name: name, initial: initial}
}

// Name is the state's name.
func (s *State[T]) Name() string { return s.name }

// Get returns the state as it is where the turn is: its initial value
// until a change on the branch set it.
func (s *State[T]) Get(ctx context.Context) (T, error) {
	key, err := s.key(ctx)
	if err != nil {
		return s.initial, err
	}
	raw, err := primitive.StateGetAPI.Call(ctx, key)
	if err != nil || raw == nil {
		return s.initial, err
	}
	var v T
	if err := json.Unmarshal(raw, &v); err != nil {
		return s.initial, fmt.Errorf("read state %s of %s: %w", s.name, s.agent.Name, err)
	}
	return v, nil
}

// Set records v as the state from here on.
func (s *State[T]) Set(ctx context.Context, v T) error {
	key, err := s.key(ctx)
	if err != nil {
		return err
	}
	raw, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("record state %s of %s: %w", s.name, s.agent.Name, err)
	}
	_, err = primitive.StateSetAPI.Call(ctx, primitive.StateChange{StateKey: key, Value: raw})
	return err
}

// Update reads the state, hands it to change, and records what change made
// of it, unless change fails.
func (s *State[T]) Update(ctx context.Context, change func(*T) error) error {
	v, err := s.Get(ctx)
	if err != nil {
		return err
	}
	if err := change(&v); err != nil {
		return err
	}
	return s.Set(ctx, v)
}

// key names the state for the primitives, once ctx is seen to be the
// agent's own: its tools run as it (primitive.AgentName), and so does the
// turn of an assistant of the same name.
func (s *State[T]) key(ctx context.Context) (primitive.StateKey, error) {
	if who := primitive.AgentName.Get(ctx); who != s.agent.Name {
		return primitive.StateKey{}, fmt.Errorf("state %s is agent %s's, reached only through its tools; %q asked for it", s.name, s.agent.Name, who)
	}
	return primitive.StateKey{Agent: s.agent.Name, Name: s.name}, nil
}
