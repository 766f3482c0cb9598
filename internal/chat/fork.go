package chat

import (
	"context"
	"fmt"

	"github.com/sweatpants-go/sweatpants/internal/durable"
	"github.com/sweatpants-go/sweatpants/internal/primitive"
	"github.com/sweatpants-go/sweatpants/internal/replay"
	"github.com/sweatpants-go/sweatpants/internal/tree"
)

// The cores of a block tried on a child branch (agents.Fork). The fork's
// node is recorded where the turn records, and the block's calls after it,
// numbered within the fork's call: the child branch is the turn's branch
// while it runs. Kept, a node says so; gone back from, the child branch is
// closed by a stop (so that recovering it from the reflog resumes nothing)
// and the flow goes on beside the fork's node (tree.Index.Tried finds the
// block's record again for a replay).

func (t *turn) fork(ctx context.Context, b primitive.ForkBlock) (string, error) {
	id := durable.NextCall(ctx)
	rec := tree.ForkRecord{Label: b.Label}
	_, err := durable.Step(t.record, replay.Fork(id, rec), func() (tree.ForkRecord, error) { return rec, nil }, func(rec tree.ForkRecord) error {
		t.conv.mu.Lock()
		defer t.conv.mu.Unlock()
		// Logged, the tried branch has an entry of its own to recover it by.
		_, err := t.appendLockedWith(ctx, tree.Node{Kind: tree.Fork, Ref: id, Agent: primitive.AgentName.Get(ctx), Payload: tree.MustEncode(rec)}, &tree.Move{Action: tree.ActTry, Detail: b.Label})
		return err
	})
	if err != nil {
		return "", err
	}
	return id, b.Run(durable.WithScope(ctx, id))
}

func (t *turn) forkEnd(ctx context.Context, d primitive.ForkDecision) (struct{}, error) {
	id := durable.NextCall(ctx)
	rec := tree.ForkEndRecord{Label: d.Label, Forward: d.Forward}
	_, err := durable.Step(t.record, replay.ForkEnd(id, rec), func() (tree.ForkEndRecord, error) { return rec, nil }, func(rec tree.ForkEndRecord) error {
		c := t.conv
		c.mu.Lock()
		defer c.mu.Unlock()
		branch := t.place.branch(t)
		fork, ok := c.idx.NewestOnPath(branch, d.Fork, tree.Fork)
		if !ok {
			return fmt.Errorf("decide on tried block %s: it is not on the turn's branch", d.Fork)
		}
		rec.Fork = fork.ID
		agent := primitive.AgentName.Get(ctx)
		if rec.Forward {
			end := tree.Node{Kind: tree.ForkEnd, Ref: id, Agent: agent, Payload: tree.MustEncode(rec)}
			_, err := t.appendLockedWith(ctx, end, &tree.Move{Action: tree.ActForward, Detail: d.Label})
			return err
		}
		closing := tree.Message{Text: fmt.Sprintf("Went back from trying %s.", d.Label)}
		closed, err := t.appendLocked(ctx, tree.Node{Kind: tree.Stopped, Agent: agent, Payload: tree.MustEncode(closing)})
		if err != nil {
			return err
		}
		rec.Tip = closed.ID // after the answer the block was given, held until now
		end := tree.Node{Kind: tree.ForkEnd, Ref: id, Agent: agent, Payload: tree.MustEncode(rec)}
		end.Parent = fork.Parent
		_, err = t.appendLockedWith(ctx, end, &tree.Move{Action: tree.ActBack, Detail: d.Label})
		return err
	})
	if err == nil && !d.Forward {
		t.states().Abandon(d.Fork, id)
	}
	return struct{}{}, err
}
