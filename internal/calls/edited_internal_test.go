package calls

import (
	"encoding/json"
	"testing"

	"github.com/sweatpants-go/sweatpants/internal/tree"
	"github.com/sweatpants-go/sweatpants/llm"
)

// A tool call the user allowed with edited arguments is still the result
// of the model call that asked for it, with its audit: the arguments it
// ran with are not the model's.
func TestAnEditedToolCallIsTheResultOfTheCallThatAskedForIt(t *testing.T) {
	msg := tree.Node{ID: 1, Kind: tree.UserMessage, Payload: tree.MustEncode(tree.Message{Text: "book"})}
	sample := tree.Node{ID: 2, Parent: 1, Kind: tree.Sample, Ref: "1-1", Payload: tree.MustEncode(tree.SampleRecord{
		Response: &llm.Response{ToolCalls: []llm.ToolCall{{ID: "c1", Name: "book", Arguments: `{"seat":"3A"}`}}},
	})}
	ran := tree.Node{ID: 3, Parent: 2, Kind: tree.ToolCall, Ref: "1-2", Payload: tree.MustEncode(tree.ToolRecord{
		Agent: "travel", Tool: "book", Input: json.RawMessage(`{"seat":"4C"}`), Output: json.RawMessage(`"booked 4C"`),
		Decision: "ask", DecidedBy: "user", Outcome: "ok", Duration: 900,
	})}
	c := read(tree.Conversation{ID: "c"}, []tree.Node{msg, sample, ran}, Filter{}, nil)
	tools := c.Turns[0].Entries[0].Call.Tools
	if len(tools) != 1 || tools[0].Node != 3 || string(tools[0].Record.Input) != `{"seat":"4C"}` || tools[0].Record.DecidedBy != "user" {
		t.Fatalf("tools %+v, want the edited call as the result of the model's", tools)
	}
}
