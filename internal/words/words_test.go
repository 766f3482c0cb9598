package words_test

import (
	"encoding/json"
	"testing"

	"github.com/sweatpants-go/sweatpants/elicit"
	"github.com/sweatpants-go/sweatpants/internal/tree"
	"github.com/sweatpants-go/sweatpants/internal/words"
	"strings"
)

// A node in words names it as a reader knows it, with its number and what
// it says, an answer with its values in a stable order.
func TestNodeWords(t *testing.T) {
	long := "Your trip to Oslo is planned: 2 travellers in economy class, flights and a hotel."
	cases := []struct {
		n    tree.Node
		want string
	}{
		{tree.Node{ID: 3, Kind: tree.UserMessage, Payload: tree.MustEncode(tree.Message{Text: "Plan a\ntrip"})}, "message #3 “Plan a trip”"},
		{tree.Node{ID: 14, Kind: tree.AssistantMessage, Payload: tree.MustEncode(tree.Message{Text: long})}, "reply #14 “Your trip to Oslo is planned: 2 travellers in e…”"},
		{tree.Node{ID: 9, Kind: tree.ElicitResponse, Payload: tree.MustEncode(elicit.Response{Action: elicit.Accept,
			Content: json.RawMessage(`{"travellers":2,"destination":"Oslo"}`)})}, "answer #9 accept: destination Oslo, travellers 2"},
		{tree.Node{ID: 10, Kind: tree.ElicitResponse, Payload: tree.MustEncode(elicit.Response{Action: elicit.Decline})}, "answer #10 decline"},
		{tree.Node{ID: 11, Kind: tree.ElicitResponse, Payload: tree.MustEncode(elicit.Response{Action: elicit.Expired})}, "answer #11 expired: no answer in time"},
		{tree.Node{ID: 11, Kind: tree.ElicitResponse, Payload: tree.MustEncode(elicit.Response{Action: elicit.Other, Text: "make it 3"})}, "answer #11 in words: “make it 3”"},
		{tree.Node{ID: 5, Kind: tree.Notify, Payload: tree.MustEncode(map[string]string{"message": "x"})}, "notify #5"},
		{tree.Node{ID: 7, Kind: tree.Fork, Payload: tree.MustEncode(tree.ForkRecord{Label: "a cheaper hotel"})}, "tried block #7 “a cheaper hotel”"},
		{tree.Node{ID: 12, Kind: tree.ForkEnd, Payload: tree.MustEncode(tree.ForkEndRecord{Fork: 7, Tip: 11})}, "end of a tried block #12 (went back from #7)"},
		{tree.Node{ID: 13, Kind: tree.ForkEnd, Payload: tree.MustEncode(tree.ForkEndRecord{Fork: 7, Forward: true, Tip: 11})}, "end of a tried block #13 (adopted #7)"},
		{tree.Node{ID: 15, Parent: 14, Kind: tree.Feedback, Payload: tree.MustEncode(tree.FeedbackRecord{Rating: tree.ThumbsDown, Comment: "too\nvague"})}, "feedback #15 thumbs down on #14: “too vague”"},
		{tree.Node{ID: 16, Parent: 14, Kind: tree.Feedback, Payload: tree.MustEncode(tree.FeedbackRecord{Rating: tree.ThumbsUp})}, "feedback #16 thumbs up on #14"},
		{tree.Node{ID: 17, Parent: 14, Kind: tree.Feedback, Payload: tree.MustEncode(tree.FeedbackRecord{Rating: tree.NoRating})}, "feedback #17 taken back on #14"},
	}
	for _, c := range cases {
		if got := words.Node(c.n); got != c.want {
			t.Errorf("NodeWords(%s #%d) = %q, want %q", c.n.Kind, c.n.ID, got, c.want)
		}
	}
}

// A tool call's arguments are read as a reader takes them in: an object's
// by name in the order written, strings as their text, objects and lists
// as indented JSON; anything else as one value.
func TestArgsWords(t *testing.T) {
	for _, c := range []struct {
		raw  string
		want []words.Arg
	}{
		{`"Oslo"`, []words.Arg{{Value: "Oslo"}}},
		{`42`, []words.Arg{{Value: "42"}}},
		{`{}`, nil},
		{`{"seat": "3A", "n": 1.50, "ok": true, "x": null}`, []words.Arg{{Name: "seat", Value: "3A"}, {Name: "n", Value: "1.50"}, {Name: "ok", Value: "true"}, {Name: "x", Value: "null"}}},
		{`{"to": ["a", "b"]}`, []words.Arg{{Name: "to", Value: "[\n  \"a\",\n  \"b\"\n]", Block: true}}},
		{`{not json`, []words.Arg{{Value: "{not json"}}},
	} {
		got := words.Args(c.raw)
		if len(got) != len(c.want) {
			t.Errorf("Args(%s) = %+v, want %+v", c.raw, got, c.want)
			continue
		}
		for i := range got {
			if got[i] != c.want[i] {
				t.Errorf("Args(%s)[%d] = %+v, want %+v", c.raw, i, got[i], c.want[i])
			}
		}
	}
}

// Who let a tool call run, or stopped it, says so in a line a reader of
// the audit knows.
func TestDecisionWords(t *testing.T) {
	for _, c := range []struct {
		r    tree.ToolRecord
		want string
	}{
		{tree.ToolRecord{}, ""},
		{tree.ToolRecord{Decision: "allow", DecidedBy: "rule", Rule: "allow flights/search (policy.rules:2)", Outcome: "ok"}, "allowed by rule “allow flights/search (policy.rules:2)”"},
		{tree.ToolRecord{Decision: "ask", DecidedBy: "user", Outcome: "ok"}, "allowed by you"},
		{tree.ToolRecord{Decision: "ask", DecidedBy: "user", Outcome: "denied"}, "denied by you"},
		{tree.ToolRecord{Decision: "allow", DecidedBy: "remembered", Rule: "for this conversation", Outcome: "error"}, "allowed by your earlier choice (for this conversation)"},
		{tree.ToolRecord{Decision: "allow", DecidedBy: "default", Outcome: "ok"}, "allowed by the default"},
		{tree.ToolRecord{Decision: "ask", DecidedBy: "unattended", Outcome: "denied"}, "denied: no one could approve"},
		{tree.ToolRecord{Decision: "ask", DecidedBy: "unattended", Outcome: "cancelled"}, "not decided: the turn stopped while it asked"},
		{tree.ToolRecord{Decision: "ask", DecidedBy: "expired", Outcome: "denied"}, "denied: the approval expired, nobody answered in time"},
		{tree.ToolRecord{Decision: "finalDeny", DecidedBy: "rule", Rule: "finalDeny */delete*", Outcome: "denied"}, "denied for good by rule “finalDeny */delete*”"},
		{tree.ToolRecord{Decision: "allow", DecidedBy: "resumed", Outcome: "ok"}, "allowed by the allow it began under, before a restart"},
	} {
		if got := words.Decision(c.r); got != c.want {
			t.Errorf("Decision(%+v) = %q, want %q", c.r, got, c.want)
		}
	}
	for us, want := range map[int64]string{850: "850 µs", 12_400: "12 ms", 1_420_000: "1.4 s", 125_000_000: "2m5s"} {
		if got := words.Duration(us); got != want {
			t.Errorf("Duration(%d) = %q, want %q", us, got, want)
		}
	}
}

// A title is one line of text a database takes: no line ends, tabs or
// NUL (PostgreSQL refuses NUL in text).
func TestATitleIsOneLineWithoutControlCharacters(t *testing.T) {
	if got := words.Title("Plan\x00a\ttrip\r\nto  Oslo\x07"); got != "Plan a trip to Oslo" {
		t.Errorf("Title = %q", got)
	}
	if got := words.Line(" \x00 "); got != "" {
		t.Errorf("Line of controls alone = %q, want empty", got)
	}
}

// A long value, such as a photo's data URL, reads as its start and its
// length, not whole.
func TestALongValueReadsAsItsStart(t *testing.T) {
	photo := "data:image/jpeg;base64," + strings.Repeat("A", 7000)
	req := elicit.Request{Kind: "take-photo", Progress: &elicit.Schema{Type: "object"}}
	got := words.Called(req, elicit.Response{Action: elicit.Accept, Content: json.RawMessage(`{"image":"` + photo + `","width":320}`)})
	if len(got) > 150 || !strings.HasPrefix(got, "take-photo → done (image data:image/jpeg;base64,") || !strings.Contains(got, "(7023 characters), width 320") {
		t.Fatalf("Called = %q, want the image clipped with its length, then the width", got)
	}
}
