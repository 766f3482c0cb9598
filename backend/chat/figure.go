package chat

import (
	"bytes"
	"context"
	"fmt"

	"github.com/sweatpants-go/sweatpants/backend/durable"
	"github.com/sweatpants-go/sweatpants/backend/figure"
	"github.com/sweatpants-go/sweatpants/backend/primitive"
	"github.com/sweatpants-go/sweatpants/backend/tree"
)

// Figures. primitive.Show records a table or a chart as a node of the turn,
// numbered like any call; the chat shows it in place as its own item (see
// buildItems), and a resumed turn that shows it again finds it in the
// record instead of recording it twice. A replay that shows a different
// figure at the same place is a non-determinism error, as for any call.

func (t *turn) show(ctx context.Context, f figure.Figure) (struct{}, error) {
	id := durable.NextCall(ctx)
	_, err := durable.Step(t.record, showCall(id, f), func() (figure.Figure, error) {
		// primitive.Show checks too; a core called directly must not record
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

// showCall is the call of showing f as call id, to compare with the record.
func showCall(id string, f figure.Figure) durable.Call[figure.Figure] {
	return durable.Call[figure.Figure]{
		ID: id, Kind: tree.Figure, Made: describeFigure(f),
		Same: func(was figure.Figure) bool {
			now, then := tree.MustEncode(f), tree.MustEncode(was)
			return bytes.Equal(now, then) || durable.SameJSON(now, then)
		},
	}
}

// describeFigure words a figure for a NonDeterminismError.
func describeFigure(f figure.Figure) string {
	switch {
	case f.Table != nil:
		return fmt.Sprintf("show a table %q", f.Table.Title)
	case f.Chart != nil:
		return fmt.Sprintf("show a %s chart %q", f.Chart.Kind, f.Chart.Title)
	}
	return "show a figure"
}
