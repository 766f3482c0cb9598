package sampling_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/sweatpants-go/sweatpants/internal/sampling"
	"github.com/sweatpants-go/sweatpants/llm"
	"github.com/sweatpants-go/sweatpants/turn"
)

// Messages are written in tests as short codes: "s" system, "u1" the user,
// "a1" the assistant, "a1>c1,c2" an assistant calling tools c1 and c2,
// "t:c1" the result of tool call c1.
func conversation(codes ...string) []llm.Message {
	var out []llm.Message
	for _, c := range codes {
		switch {
		case c == "s" || strings.HasPrefix(c, "s"):
			out = append(out, llm.Message{Role: llm.System, Content: c})
		case strings.HasPrefix(c, "u"):
			out = append(out, llm.Message{Role: llm.User, Content: c})
		case strings.HasPrefix(c, "t:"):
			out = append(out, llm.Message{Role: llm.Tool, ToolCallID: c[2:], Content: c})
		case strings.HasPrefix(c, "a"):
			name, calls, _ := strings.Cut(c, ">")
			m := llm.Message{Role: llm.Assistant, Content: name}
			if calls != "" {
				for _, id := range strings.Split(calls, ",") {
					m.ToolCalls = append(m.ToolCalls, llm.ToolCall{ID: id, Name: "tool", Arguments: "{}"})
				}
			}
			out = append(out, m)
		}
	}
	return out
}

// codes writes msgs back as codes, a note of omission as "(n)".
func codes(msgs []llm.Message) string {
	var out []string
	for _, m := range msgs {
		switch {
		case m.Role == llm.System && strings.HasPrefix(m.Content, "("):
			n := 0
			fmt.Sscanf(m.Content, "(%d", &n)
			out = append(out, fmt.Sprintf("(%d)", n))
		case m.Role == llm.Assistant && len(m.ToolCalls) > 0:
			var ids []string
			for _, c := range m.ToolCalls {
				ids = append(ids, c.ID)
			}
			out = append(out, m.Content+">"+strings.Join(ids, ","))
		default:
			out = append(out, m.Content)
		}
	}
	return strings.Join(out, " ")
}

func TestTruncateHistory(t *testing.T) {
	for _, tc := range []struct {
		name string
		t    sampling.Truncation
		in   []string
		want string
	}{
		{"short enough is left alone", sampling.Truncation{MaxMessages: 5},
			[]string{"s", "u1", "a1", "u2", "a2"}, "s u1 a1 u2 a2"},
		{"the assistant's prose goes first, then the oldest user messages; system messages stay", sampling.Truncation{MaxMessages: 5},
			[]string{"s", "u1", "a1", "u2", "a2", "u3", "a3", "u4"}, "s (4) u2 u3 u4"},
		{"the latest turns stay even over the limit", sampling.Truncation{MaxMessages: 3, KeepTurns: 2},
			[]string{"s", "u1", "a1", "u2", "a2", "u3"}, "s (2) u2 a2 u3"},
		{"a system message in the middle stays", sampling.Truncation{MaxMessages: 4},
			[]string{"u1", "a1", "s-summary", "u2", "a2", "u3"}, "(3) s-summary u2 u3"},
		{"a tool call goes with all its results", sampling.Truncation{MaxMessages: 5},
			[]string{"s", "u1", "a1>c1,c2", "t:c1", "t:c2", "a1", "u2", "a2", "u3"}, "s u1 (5) u2 u3"},
		{"a tool call is not split to fit", sampling.Truncation{MaxMessages: 6},
			[]string{"s", "u1", "a1>c1,c2", "t:c1", "t:c2", "a1", "u2", "a2", "u3"}, "s (4) a1>c1,c2 t:c1 t:c2 u3"},
		{"a tool call is kept with its results", sampling.Truncation{MaxMessages: 7},
			[]string{"s", "u1", "a1>c1,c2", "t:c1", "t:c2", "a1", "u2", "a2", "u3"}, "s (3) a1>c1,c2 t:c1 t:c2 u2 u3"},
		{"a latest turn over the limit keeps its message and its latest tool call", sampling.Truncation{MaxMessages: 2},
			[]string{"u1", "a1", "u2", "a2>c1", "t:c1", "a2>c2", "t:c2"}, "(4) u2 a2>c2 t:c2"},
		{"a latest turn's older tool calls go only as far as needed", sampling.Truncation{MaxMessages: 7},
			[]string{"s", "u1", "a1>c1", "t:c1", "a1>c2", "t:c2", "a1>c3", "t:c3", "a1>c4", "t:c4"}, "s u1 (4) a1>c3 t:c3 a1>c4 t:c4"},
		{"results arriving out of order", sampling.Truncation{MaxMessages: 5},
			[]string{"u1", "a1>c1,c2", "t:c2", "a-aside", "t:c1", "u2", "a2", "u3"}, "(4) a1>c1,c2 t:c2 t:c1 u3"},
		{"the note is not put between a call and its results", sampling.Truncation{MaxWords: 20},
			[]string{"s", "u1", "a1>c1,c2", "t:c1", "a-aside " + strings.Repeat("w ", 20), "t:c2", "u2"}, "s u1 a1>c1,c2 t:c1 t:c2 (1) u2"},
		{"words as tokens", sampling.Truncation{MaxWords: 20},
			[]string{"u1 " + strings.Repeat("w ", 30), "a1", "u2", "a2", "u3"}, "(1) a1 u2 a2 u3"},
		{"no user message: nothing is safe to drop", sampling.Truncation{MaxMessages: 2},
			[]string{"s", "a1", "a2", "a3"}, "s a1 a2 a3"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := replying("ok")
			ctx := sampling.TruncateHistory(m.provide(t.Context()), tc.t)
			req := llm.Request{Messages: conversation(tc.in...)}
			if _, err := turn.Sample(ctx, req); err != nil {
				t.Fatal(err)
			}
			got := m.requests[0].Messages
			if codes(got) != tc.want {
				t.Errorf("the model got\n %s\nwant\n %s", codes(got), tc.want)
			}
			checkPairs(t, got)
			if codes(req.Messages) != strings.Join(tc.in, " ") {
				t.Errorf("the caller's request was changed: %s", codes(req.Messages))
			}
		})
	}
}

// checkPairs fails t if msgs hold a tool result without its call, or a
// call without all its results: what OpenAI refuses.
func checkPairs(t *testing.T, msgs []llm.Message) {
	t.Helper()
	calls, results := map[string]bool{}, map[string]bool{}
	for _, m := range msgs {
		for _, c := range m.ToolCalls {
			calls[c.ID] = true
		}
		if m.Role == llm.Tool {
			if !calls[m.ToolCallID] {
				t.Errorf("the result of %s comes without its call", m.ToolCallID)
			}
			results[m.ToolCallID] = true
		}
	}
	for id := range calls {
		if !results[id] {
			t.Errorf("the call %s comes without its result", id)
		}
	}
}

// The note says how many messages were left out, in words.
func TestTruncateHistoryNote(t *testing.T) {
	m := replying("ok")
	ctx := sampling.TruncateHistory(m.provide(t.Context()), sampling.Truncation{MaxMessages: 3})
	if _, err := turn.Sample(ctx, llm.Request{Messages: conversation("u1", "a1", "u2", "a2", "u3")}); err != nil {
		t.Fatal(err)
	}
	note := m.requests[0].Messages[0]
	if note.Role != llm.System || note.Content != "(3 earlier messages omitted)" {
		t.Errorf("note %+v", note)
	}
}

// truncated returns what the model is sent of msgs under t.
func truncated(t *testing.T, tr sampling.Truncation, msgs []llm.Message) []llm.Message {
	t.Helper()
	m := replying("ok")
	ctx := sampling.TruncateHistory(m.provide(t.Context()), tr)
	if _, err := turn.Sample(ctx, llm.Request{Messages: msgs}); err != nil {
		t.Fatal(err)
	}
	got := m.requests[0].Messages
	checkPairs(t, got)
	return got
}

// The tighter the limit, the more goes, in the order of what says least:
// the assistant's prose, then the user's messages, then tool exchanges,
// the oldest first within each. Room a large unit leaves goes back to the
// most valued of what went before it.
func TestTruncateHistoryPriority(t *testing.T) {
	in := []string{"u1", "a1>c1", "t:c1", "a1", "a1'", "u2", "a2>c2", "t:c2", "a2", "u3"}
	for _, tc := range []struct {
		max  int
		want string
	}{
		{10, "u1 a1>c1 t:c1 a1 a1' u2 a2>c2 t:c2 a2 u3"},
		{9, "u1 a1>c1 t:c1 (2) u2 a2>c2 t:c2 a2 u3"}, // the older prose
		{8, "u1 a1>c1 t:c1 (3) u2 a2>c2 t:c2 u3"},    // all the prose
		{7, "(4) a1>c1 t:c1 u2 a2>c2 t:c2 u3"},       // then the older user message
		{6, "(5) a1>c1 t:c1 a2>c2 t:c2 u3"},          // then every user message
		{5, "(6) u2 a2>c2 t:c2 u3"},                  // then the older exchange, which leaves room for u2
		{4, "(7) a2>c2 t:c2 u3"},                     // but not at 4
		{3, "(8) u2 u3"},                             // no exchange fits: the newer user message does
		{2, "(9) u3"},
		{1, "(9) u3"}, // the latest turn is kept over the limit
	} {
		t.Run(fmt.Sprint(tc.max), func(t *testing.T) {
			got := truncated(t, sampling.Truncation{MaxMessages: tc.max}, conversation(in...))
			if codes(got) != tc.want {
				t.Errorf("the model got\n %s\nwant\n %s", codes(got), tc.want)
			}
		})
	}
}

// MaxTokens counts as the compaction estimates: 4 a message and one for
// every 4 bytes of its content and of its tool calls' names and arguments.
func TestTruncateHistoryTokens(t *testing.T) {
	msgs := []llm.Message{
		{Role: llm.User, Content: strings.Repeat("q", 396)},                                                                           // 4 + 99
		{Role: llm.Assistant, ToolCalls: []llm.ToolCall{{ID: "c1", Name: "search", Arguments: `"` + strings.Repeat("x", 392) + `"`}}}, // 4 + 100
		{Role: llm.Tool, ToolCallID: "c1", Content: strings.Repeat("r", 400)},                                                         // 4 + 100
		{Role: llm.User, Content: "next"},                                                                                             // 4 + 1
	}
	const total = 103 + 104 + 104 + 5
	if got := truncated(t, sampling.Truncation{MaxTokens: total}, msgs); len(got) != len(msgs) {
		t.Errorf("at %d tokens, exactly its estimate, the request lost %d messages", total, len(msgs)-len(got))
	}
	got := truncated(t, sampling.Truncation{MaxTokens: total - 1}, msgs)
	if len(got) != 4 || got[0].Role != llm.System || got[1].Role != llm.Assistant || got[3].Content != "next" {
		var roles []llm.Role
		for _, m := range got {
			roles = append(roles, m.Role)
		}
		t.Errorf("one token under its estimate the model got messages of %v; want the first user message dropped", roles)
	}
	tokens := 0
	for _, m := range got {
		tokens += 4 + (len(m.Content)+3)/4
		for _, c := range m.ToolCalls {
			tokens += (len(c.Name) + len(c.Arguments) + 3) / 4
		}
	}
	if tokens > total-1 {
		t.Errorf("the trimmed request is %d tokens, over its budget of %d", tokens, total-1)
	}
}
