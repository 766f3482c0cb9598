package history

import (
	"github.com/sweatpants-go/sweatpants/internal/tokens"
	"github.com/sweatpants-go/sweatpants/internal/tree"
	"github.com/sweatpants-go/sweatpants/llm"
)

// Counting tokens. The count is estimated as tokens.Estimate does, as
// trimming (sampling.TruncateHistory) counts too, then scaled by how the
// provider itself counted the branch's last model call, from the usage it
// reported.

// EstimateTokens estimates the tokens of msgs, unscaled.
func EstimateTokens(msgs []llm.Message) int {
	n := 0
	for _, m := range msgs {
		n += tokens.Estimate(m)
	}
	return n
}

// TokenScale is how the provider counts against EstimateTokens: the
// prompt tokens of the newest model call on path whose usage is known,
// over the estimate of its messages; 1 when none is known. It is bounded,
// so that one odd report cannot turn compaction off or on for good.
func TokenScale(path tree.Path) float64 {
	for i := len(path) - 1; i >= 0; i-- {
		if path[i].Kind != tree.Sample {
			continue
		}
		rec, err := tree.Decode[tree.SampleRecord](path[i])
		if err != nil || rec.Response == nil || rec.Response.Usage.PromptTokens == 0 {
			continue
		}
		if rec.Base != 0 { // recorded as what was new: its whole request counts
			if rec, err = new(tree.Requests).Whole(path[i], path.Node); err != nil {
				continue
			}
		}
		est := EstimateTokens(rec.Request.Messages)
		if est == 0 {
			continue
		}
		return min(max(float64(rec.Response.Usage.PromptTokens)/float64(est), 0.25), 4)
	}
	return 1
}

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
