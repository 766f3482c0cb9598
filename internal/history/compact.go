package history

import (
	"context"
	"fmt"
	"strings"

	"github.com/sweatpants-go/sweatpants/internal/primitive"
	"github.com/sweatpants-go/sweatpants/internal/tree"
	"github.com/sweatpants-go/sweatpants/llm"
	"github.com/sweatpants-go/sweatpants/turn"
)

// Compaction's two steps that need nothing of the live conversation: which
// messages of the model's context to summarize, and the summary itself.
// The conversation (package chat) records the summary and gives the model
// it in place of the span from then on.

// Compactable is the span of msgs, the model's context, to be summarized
// when it holds more than limit tokens (scaled by scale, TokenScale): the
// oldest messages, leaving as they are the newest ones that fit in half the
// limit; nil when the context fits, or when fewer than two messages would
// be summarized. System messages and summaries are not summarized again:
// each summary stands for its own span, so what the earliest ones say never
// fades into a summary of a summary. A tool's result is never cut apart
// from its call: the exchange stays whole on one side of the cut.
func Compactable(msgs []Message, limit int, scale float64) []Message {
	var said []Message
	for _, m := range msgs {
		if m.Role != llm.System {
			said = append(said, m)
		}
	}
	tokens := func(ms []Message) int { return int(float64(EstimateTokens(Plain(ms))) * scale) }
	if tokens(said) <= limit {
		return nil
	}
	keep := len(said)
	for keep > 0 && tokens(said[keep-1:]) <= limit/2 {
		keep--
	}
	for keep > 0 && keep < len(said) && said[keep].Node == said[keep-1].Node {
		keep--
	}
	if keep < 2 {
		return nil
	}
	return said[:keep]
}

// Summarize asks the model for a summary of span, through turn.Sample so
// that the call is recorded (and replayed) like any other: the span's
// messages as they were, then the request to summarize them.
func Summarize(ctx context.Context, span []Message) (tree.SummaryRecord, error) {
	msgs := []llm.Message{{Role: llm.System, Content: "You summarize conversations faithfully, keeping names, numbers and decisions."}}
	msgs = append(msgs, Plain(span)...)
	msgs = append(msgs, llm.Message{Role: llm.User, Content: "Summarize the conversation above in a few sentences."})
	resp, err := turn.Sample(primitive.Aside.With(ctx, true), llm.Request{Messages: msgs})
	if err != nil {
		return tree.SummaryRecord{}, fmt.Errorf("compact the conversation: %w", err)
	}
	s := tree.SummaryRecord{Text: strings.TrimSpace(resp.Content), Count: len(span)}
	for _, m := range span {
		if len(s.Covers) == 0 || s.Covers[len(s.Covers)-1] != m.Node {
			s.Covers = append(s.Covers, m.Node)
		}
	}
	return s, nil
}
