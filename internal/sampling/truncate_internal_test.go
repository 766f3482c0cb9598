package sampling

import (
	"fmt"
	"strings"
	"testing"

	"github.com/sweatpants-go/sweatpants/internal/tokens"
	"github.com/sweatpants-go/sweatpants/llm"
)

// loop returns the request of an agent loop n messages long: a system
// prompt, the user's question, then tool calls and their results, each
// result some hundred bytes of text.
func loop(n int) []llm.Message {
	msgs := []llm.Message{
		{Role: llm.System, Content: "You are a helpful assistant with tools."},
		{Role: llm.User, Content: "Find me a flight to Oslo on Friday, and a hotel near the station."},
	}
	for i := 0; len(msgs) < n; i++ {
		id := fmt.Sprintf("call_%d", i)
		msgs = append(msgs,
			llm.Message{Role: llm.Assistant, Content: "Let me look that up.", ToolCalls: []llm.ToolCall{{ID: id, Name: "search", Arguments: `{"query":"flights to Oslo","day":"Friday"}`}}},
			llm.Message{Role: llm.Tool, ToolCallID: id, Content: strings.Repeat("SK 4711 departs 08:15, arrives 09:05, 129 EUR. ", 3)})
	}
	return msgs[:n]
}

// A request under the limit is counted and handed on as it is: no
// allocation, whichever limits are set.
func TestTruncateUnderLimitAllocatesNothing(t *testing.T) {
	msgs := loop(400)
	for _, tr := range []Truncation{{MaxTokens: 1 << 30, KeepTurns: 1}, {MaxWords: 1 << 30}, {MaxMessages: 1000}} {
		if n := testing.AllocsPerRun(20, func() { tr.truncate(msgs) }); n != 0 {
			t.Errorf("%+v: %v allocations a call, want none", tr, n)
		}
	}
}

// countWords counts as strings.Fields splits.
func TestCountWords(t *testing.T) {
	for _, s := range []string{"", " ", "one", " two  words ", "tab\tand\nnewline\r\n", "non\u00a0breaking\u2003space", "ünïcödé wörds", "\v\f", "a\x85b"} {
		if got, want := countWords(s), len(strings.Fields(s)); got != want {
			t.Errorf("countWords(%q) = %d, want %d", s, got, want)
		}
	}
}

// BenchmarkTruncate measures what TruncateHistory costs a model call whose
// request fits, at the sizes an agent loop reaches: it runs on every call.
// The last, for comparison, is a request of 400 messages of which half
// must go, as every call of a conversation past its budget is.
func BenchmarkTruncate(b *testing.B) {
	for _, n := range []int{20, 200, 400} {
		msgs := loop(n)
		for _, tc := range []struct {
			name string
			t    Truncation
		}{
			{"tokens", Truncation{MaxTokens: 1 << 30, KeepTurns: 1}},
			{"words", Truncation{MaxWords: 1 << 30, KeepTurns: 1}},
		} {
			b.Run(fmt.Sprintf("%s/%d", tc.name, n), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					tc.t.truncate(msgs)
				}
			})
		}
	}
	b.Run("trimmed/400", func(b *testing.B) {
		msgs := loop(400)
		tr := Truncation{KeepTurns: 1}
		for _, m := range msgs {
			tr.MaxTokens += tokens.Estimate(m)
		}
		tr.MaxTokens /= 2
		msgs = append(msgs, llm.Message{Role: llm.User, Content: "And the hotel?"}) // the loop above is an older turn
		b.ReportAllocs()
		for b.Loop() {
			tr.truncate(msgs)
		}
	})
}
