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
