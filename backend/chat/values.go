package chat

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/sweatpants-go/sweatpants/backend/tree"
)

// valueRecord is the payload of a value node.
type valueRecord struct {
	Name  string          `json:"name"`
	Value json.RawMessage `json:"value"`
}

// recordValue gives the turn's call its recorded value when it is replayed,
// and otherwise takes a fresh one and records it.
func recordValue[T any](t *turn, ctx context.Context, name string, fresh func() T) (T, error) {
	var v T
	id := nextCall(ctx)
	n, replayed, err := t.record.replayed(id, tree.Value, name, func(n tree.Node) bool {
		var rec valueRecord
		json.Unmarshal(n.Payload, &rec)
		return rec.Name == name
	})
	if err != nil {
		return v, err
	}
	if replayed {
		var rec valueRecord
		json.Unmarshal(n.Payload, &rec)
		err := json.Unmarshal(rec.Value, &v)
		return v, err
	}
	v = fresh()
	raw, err := json.Marshal(v)
	if err != nil {
		return v, fmt.Errorf("record %s: %w", name, err)
	}
	t.l.mu.Lock()
	defer t.l.mu.Unlock()
	_, err = t.appendLocked(ctx, tree.Node{Kind: tree.Value, Ref: id, Payload: mustJSON(valueRecord{Name: name, Value: raw})})
	return v, err
}

func (t *turn) now(ctx context.Context, _ struct{}) (time.Time, error) {
	return recordValue(t, ctx, "now", time.Now)
}

func (t *turn) random(ctx context.Context, _ struct{}) (uint64, error) {
	return recordValue(t, ctx, "random", rand.Uint64)
}
