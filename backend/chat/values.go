package chat

import (
	"context"
	"math/rand/v2"
	"time"

	"github.com/sweatpants-go/sweatpants/backend/durable"
	"github.com/sweatpants-go/sweatpants/backend/tree"
)

// recordValue gives the turn's call its recorded value when it is replayed,
// and otherwise takes a fresh one and records it.
func recordValue[T any](t *turn, ctx context.Context, name string, fresh func() T) (T, error) {
	id := durable.NextCall(ctx)
	return durable.Value(t.record, id, name, fresh, func(rec tree.ValueRecord) error {
		t.l.mu.Lock()
		defer t.l.mu.Unlock()
		_, err := t.appendLocked(ctx, tree.Node{Kind: tree.Value, Ref: id, Payload: tree.MustEncode(rec)})
		return err
	})
}

func (t *turn) now(ctx context.Context, _ struct{}) (time.Time, error) {
	return recordValue(t, ctx, "now", time.Now)
}

func (t *turn) random(ctx context.Context, _ struct{}) (uint64, error) {
	return recordValue(t, ctx, "random", rand.Uint64)
}
