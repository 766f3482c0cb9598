package chat

import (
	"context"

	"github.com/sweatpants-go/sweatpants/figure"
	"github.com/sweatpants-go/sweatpants/internal/durable"
	"github.com/sweatpants-go/sweatpants/internal/primitive"
	"github.com/sweatpants-go/sweatpants/internal/replay"
	"github.com/sweatpants-go/sweatpants/internal/tree"
)

// Figures. turnapi.Show records a table or a chart as a node of the turn,
// numbered like any call; the chat shows it in place as its own item (see
// buildItems), and a resumed turn that shows it again finds it in the
// record instead of recording it twice. A replay that shows a different
// figure at the same place is a non-determinism error, as for any call.

func (t *turn) show(ctx context.Context, f figure.Figure) (struct{}, error) {
	id := durable.NextCall(ctx)
	_, err := durable.Step(t.record, replay.Show(id, f), func() (figure.Figure, error) {
		// turnapi.Show checks too; a core called directly must not record
		// what no page could show.
		return f, f.Check()
	}, func(f figure.Figure) error {
		c := t.conv
		c.mu.Lock()
		defer c.mu.Unlock()
		_, err := t.appendLocked(ctx, tree.Node{Kind: tree.Figure, Ref: id, Agent: primitive.AgentName.Get(ctx), Payload: tree.MustEncode(f)})
		return err
	})
	return struct{}{}, err
}
