package eventstream

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/sweatpants-go/sweatpants/internal/tree"
)

// A tool call's events carry its audit: tool.result says what was decided,
// by whom, under which rule, how it went and how long it ran; tool.call
// gives the digest that stands for arguments a rule said not to keep.
func TestAToolCallsEventsCarryItsAudit(t *testing.T) {
	at := time.Unix(1700000000, 0)
	msg := tree.Node{ID: 1, Kind: tree.UserMessage, Payload: tree.MustEncode(tree.Message{Text: "book"}), At: at}
	call := tree.Node{ID: 2, Parent: 1, Kind: tree.ToolCall, Ref: "1-2", At: at, Payload: tree.MustEncode(tree.ToolRecord{
		Agent: "travel", Tool: "book", Input: json.RawMessage("null"), Digest: "sha256:ab12", Error: "denied: too dear",
		Decision: "ask", DecidedBy: "user", Approval: "1-1", Outcome: "denied",
	})}
	ran := tree.Node{ID: 3, Parent: 2, Kind: tree.ToolCall, Ref: "1-3", At: at, Payload: tree.MustEncode(tree.ToolRecord{
		Agent: "travel", Tool: "search", Input: json.RawMessage(`{"to":"Oslo"}`), Output: json.RawMessage(`[]`),
		Decision: "allow", DecidedBy: "rule", Rule: "allow travel/search (policy:1)", Outcome: "ok", Started: 1700000000000, Duration: 1250,
	})}
	x := tree.NewIndex([]tree.Node{msg, call, ran})
	f := newRuns(position{})
	var evs []Event
	for _, n := range []tree.Node{msg, call, ran} {
		evs = f.eventsOf(x, n, evs)
	}
	if len(evs) != 5 {
		t.Fatalf("%d events, want 5: %+v", len(evs), evs)
	}
	if c := evs[1].Data.(ToolCall); c.Digest != "sha256:ab12" || string(c.Input) != "null" {
		t.Errorf("tool.call = %+v, want the digest for the arguments not kept", c)
	}
	got, _ := json.Marshal(evs[2].Data)
	want := `{"run":1,"node":2,"at":"` + at.Format(time.RFC3339) + `","call":"1-2","agent":"travel","tool":"book","error":"denied: too dear","decision":"ask","decided_by":"user","outcome":"denied"}`
	if string(got) != want {
		t.Errorf("tool.result of a denied call:\n %s\nwant\n %s", got, want)
	}
	if r := evs[4].Data.(ToolResult); r.Decision != "allow" || r.DecidedBy != "rule" || r.Rule != "allow travel/search (policy:1)" || r.Outcome != "ok" || r.Duration != 1250 {
		t.Errorf("tool.result of an allowed call = %+v", r)
	}
}
