package calls

import (
	"bytes"
	"testing"

	"github.com/sweatpants-go/sweatpants/internal/tree"
	"github.com/sweatpants-go/sweatpants/llm"
)

// A model call recorded as what is new in its request is listed with its
// whole request, rebuilt from the call it continues, and so is one whose
// record was written whole before calls were recorded that way; a page
// that reads the conversation again (through its records) shows the same.
func TestACallIsListedWithItsWholeRequest(t *testing.T) {
	tools := []llm.ToolSpec{{Name: "step", Parameters: []byte(`{"type":"object"}`)}}
	first := llm.Request{Messages: []llm.Message{{Role: llm.User, Content: "go"}}, Tools: tools}
	call := llm.ToolCall{ID: "c1", Name: "step", Arguments: `{}`}
	second := llm.Request{Messages: append(first.Messages[:1:1], llm.Message{Role: llm.Assistant, ToolCalls: []llm.ToolCall{call}}, llm.Message{Role: llm.Tool, ToolCallID: "c1", Content: "1"}), Tools: tools}
	msg := tree.Node{ID: 1, Kind: tree.UserMessage, Payload: tree.MustEncode(tree.Message{Text: "go"})}
	// The first record as written before bases: the request whole.
	old := tree.Node{ID: 2, Parent: 1, Kind: tree.Sample, Ref: "1-1", Payload: []byte(`{"request":` + string(tree.MustEncode(first)) + `,"response":{"content":"","model":"m","provider":"p","finish_reason":"tool_calls","usage":{"prompt_tokens":1,"completion_tokens":1,"total_tokens":2},"tool_calls":[{"id":"c1","name":"step","arguments":"{}"}]},"latency_ms":2}`)}
	rec := tree.Prior{Node: 2, Request: first}.Record(second)
	rec.Response = &llm.Response{Content: "done"}
	if rec.Base != 2 || len(rec.Request.Messages) != 2 {
		t.Fatalf("the second call is recorded as %+v, want two new messages after node 2's", rec)
	}
	next := tree.Node{ID: 3, Parent: 2, Kind: tree.Sample, Ref: "1-2", Payload: tree.MustEncode(rec)}
	rs := records{}
	for _, pass := range []string{"first read", "read again"} {
		c := read(tree.Conversation{ID: "c"}, []tree.Node{msg, old, next}, Filter{}, rs)
		es := c.Turns[0].Entries
		if len(es) != 2 {
			t.Fatalf("%s: %d entries, want the two calls", pass, len(es))
		}
		for i, want := range []llm.Request{first, second} {
			if got := es[i].Call.Record.Request; !bytes.Equal(tree.MustEncode(got), tree.MustEncode(want)) {
				t.Errorf("%s: call %d lists the request\n%s\nwant\n%s", pass, i+1, tree.MustEncode(got), tree.MustEncode(want))
			}
		}
	}
}
