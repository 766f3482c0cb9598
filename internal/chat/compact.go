package chat

import (
	"context"
	"fmt"

	"github.com/sweatpants-go/sweatpants/internal/attach"
	"github.com/sweatpants-go/sweatpants/internal/durable"
	"github.com/sweatpants-go/sweatpants/internal/history"
	"github.com/sweatpants-go/sweatpants/internal/primitive"
	"github.com/sweatpants-go/sweatpants/internal/replay"
	"github.com/sweatpants-go/sweatpants/internal/tree"
	"github.com/sweatpants-go/sweatpants/llm"
	"github.com/sweatpants-go/sweatpants/middleware"
)

// Compaction. The model's context is the conversation so far (see
// turnapi.History). When the messages a branch gives the model come to
// more tokens than CompactTokens, the compaction middleware has the model
// summarize the oldest of them, leaving the newest half of the limit as
// they are; it records the summary as a node on the branch and gives the
// model the summary in place of the span from then on. The span's nodes
// stay in the tree; the inspector shows them under the summary.

// CompactTokens is how many tokens of conversation the model's context may
// hold before the oldest messages are summarized; zero turns compaction
// off. Middleware or an app can set it for a scope.
var CompactTokens = middleware.NewValue("compact-tokens", 0)

// history is the core of turnapi.History for the turn: the path up to the
// turn's message (package history), with the summaries of earlier turns and
// this one's, under the version of the history its message was recorded
// with (tree.Message.History): a turn recorded under an older one is given
// that again, so that its recorded model calls still match.
func (t *turn) history(ctx context.Context, _ struct{}) ([]llm.Message, error) {
	c := t.conv
	c.lock() // the history has the answer the turn was handed
	msgs := t.place.history(t, history.VersionOf(c.idx, t.id))
	c.mu.Unlock()
	if t.summary != nil {
		msgs = history.ApplySummary(msgs, t.summaryNode, *t.summary)
	}
	msgs, err := attach.History(ctx, msgs, c.openFile)
	if err != nil {
		return nil, err
	}
	t.lastHistory = msgs
	return history.Plain(msgs), nil
}

// compact is middleware around turnapi.History: a history of more tokens
// than CompactTokens has its oldest messages summarized by the model, and
// the summary is recorded. Like every call of a turn it is numbered and
// replayed from the record.
func (t *turn) compact(next middleware.Handler[struct{}, []llm.Message]) middleware.Handler[struct{}, []llm.Message] {
	return func(ctx context.Context, req struct{}) ([]llm.Message, error) {
		id := durable.NextCall(ctx)
		n, was, replayed, err := durable.Lookup(t.record, replay.Compact(id))
		if err != nil {
			return nil, err
		}
		if replayed {
			t.summary, t.summaryNode = &was, n.ID
			return next(ctx, req)
		}
		msgs, err := next(ctx, req)
		limit := CompactTokens.Get(ctx)
		if err != nil || limit <= 0 {
			return msgs, err
		}
		t.conv.lock()
		scale := history.TokenScale(t.conv.path)
		t.conv.mu.Unlock()
		span := history.Compactable(t.lastHistory, limit, scale)
		if span == nil {
			return msgs, nil
		}
		// The summary's model call is numbered within the compaction's
		// own call: a replay, which takes the summary from the record and
		// makes no model call for it, numbers the turn's next calls as the
		// live run did.
		s, err := history.Summarize(durable.WithScope(ctx, id), span)
		if err != nil {
			return nil, err
		}
		t.conv.mu.Lock()
		node, err := t.appendLockedWith(ctx, tree.Node{Kind: tree.Summary, Ref: id, Agent: primitive.AgentName.Get(ctx), Payload: tree.MustEncode(s)},
			&tree.Move{Action: tree.ActCompact, Detail: fmt.Sprintf("%d messages summarized", s.Count)})
		t.conv.mu.Unlock()
		if err != nil {
			return nil, err
		}
		t.summary, t.summaryNode = &s, node.ID
		return next(ctx, req)
	}
}
