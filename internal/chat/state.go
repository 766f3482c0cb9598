package chat

import (
	"context"
	"encoding/json"

	"github.com/sweatpants-go/sweatpants/internal/durable"
	"github.com/sweatpants-go/sweatpants/internal/primitive"
	"github.com/sweatpants-go/sweatpants/internal/replay"
	"github.com/sweatpants-go/sweatpants/internal/state"
	"github.com/sweatpants-go/sweatpants/internal/tree"
)

// The cores of agents' state (agents.State, package state): a change is a
// recorded call; a read is the state on the turn's branch up to its
// message, with the turn's own changes made before it.

// states is the state as t sees it, made when the turn first reads or
// changes one: most turns never do.
func (t *turn) states() *state.Turn {
	t.stateOnce.Do(func() {
		t.conv.mu.Lock()
		branch := t.place.branch(t)
		t.conv.mu.Unlock()
		t.state = state.ForTurn(branch, t.id, t.record.OfKind(state.Kinds()...))
	})
	return t.state
}

func (t *turn) stateGet(ctx context.Context, k primitive.StateKey) (json.RawMessage, error) {
	v, ok := t.states().Get(state.Key(k), durable.Peek(ctx))
	if !ok {
		return nil, nil
	}
	return v.JSON, nil
}

func (t *turn) stateSet(ctx context.Context, ch primitive.StateChange) (struct{}, error) {
	id := durable.NextCall(ctx)
	states := t.states()
	rec := tree.StateRecord{Agent: ch.Agent, Name: ch.Name, Value: ch.Value}
	_, err := durable.Step(t.record, replay.State(id, rec), func() (tree.StateRecord, error) { return rec, nil }, func(rec tree.StateRecord) error {
		c := t.conv
		c.mu.Lock()
		defer c.mu.Unlock()
		n, err := t.appendLocked(ctx, tree.Node{Kind: tree.StateChange, Ref: id, Agent: ch.Agent, Payload: tree.MustEncode(rec)})
		if err != nil {
			return err
		}
		states.Changed(state.Key(ch.StateKey), id, state.Value{JSON: rec.Value, Node: n.ID})
		return nil
	})
	return struct{}{}, err
}
