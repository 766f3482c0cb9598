package history

import (
	"strings"
	"testing"

	"github.com/sweatpants-go/sweatpants/internal/tree"
	"github.com/sweatpants-go/sweatpants/llm"
)

func TestTokensAreEstimatedAndScaledAsTheProviderCounts(t *testing.T) {
	long := llm.Message{Role: llm.User, Content: strings.Repeat("word ", 80)} // 400 bytes
	if got := EstimateTokens([]llm.Message{long, {Role: llm.Assistant}}); got != 4+100+4 {
		t.Errorf("estimate = %d, want 108: four bytes a token and four a message", got)
	}
	call := llm.Message{Role: llm.Assistant, ToolCalls: []llm.ToolCall{{ID: "c", Name: "search", Arguments: `{"city":"Oslo"}`}}}
	if got := EstimateTokens([]llm.Message{call}); got != 4+(6+15+3)/4 {
		t.Errorf("estimate of a tool call = %d, want %d: its name and arguments count", got, 4+(6+15+3)/4)
	}
	sample := func(prompt int) tree.Node {
		rec := tree.SampleRecord{Request: llm.Request{Messages: []llm.Message{long}}} // estimated 104
		if prompt >= 0 {
			rec.Response = &llm.Response{Usage: llm.Usage{PromptTokens: prompt}}
		}
		return tree.Node{Kind: tree.Sample, Payload: tree.MustEncode(rec)}
	}
	// continued is a call that sent base's message again and nothing new.
	continued := func(base int64, prompt int) tree.Node {
		rec := tree.SampleRecord{Base: base, Kept: 1, SameTools: true, Response: &llm.Response{Usage: llm.Usage{PromptTokens: prompt}}}
		return tree.Node{Kind: tree.Sample, Payload: tree.MustEncode(rec)}
	}
	withID := func(id int64, n tree.Node) tree.Node { n.ID = id; return n }
	user := tree.Node{Kind: tree.UserMessage, Payload: tree.MustEncode(tree.Message{Text: "hi"})}
	tests := []struct {
		name string
		path tree.Path
		want float64
	}{
		{"no model call yet", tree.Path{user}, 1},
		{"the provider counted half", tree.Path{user, sample(52), user}, 0.5},
		{"the newest call with usage counts", tree.Path{sample(52), user, sample(208), user}, 2},
		{"a call without usage is passed over", tree.Path{sample(52), sample(0), sample(-1)}, 0.5},
		{"bounded below", tree.Path{sample(1)}, 0.25},
		{"bounded above", tree.Path{sample(100000)}, 4},
		{"a call recorded as what was new counts its whole request", tree.Path{withID(1, sample(-1)), withID(2, continued(1, 52))}, 0.5},
	}
	for _, tt := range tests {
		if got := TokenScale(tt.path); got != tt.want {
			t.Errorf("%s: scale = %v, want %v", tt.name, got, tt.want)
		}
	}
}
