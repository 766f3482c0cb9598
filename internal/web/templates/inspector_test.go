package templates

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"github.com/sweatpants-go/sweatpants/internal/calls"
	"github.com/sweatpants-go/sweatpants/internal/inspector"
	"github.com/sweatpants-go/sweatpants/internal/tree"
	"github.com/sweatpants-go/sweatpants/llm"
)

// A value node says in its line what the turn read; a version marker
// (turn.Version) says which change it is a version of, so a developer sees
// which path a turn took without opening its payload.
func TestAValueNodeSaysWhatWasRead(t *testing.T) {
	tests := []struct {
		rec  tree.ValueRecord
		want string
	}{
		{tree.ValueRecord{Name: "random", Value: json.RawMessage(`42`)}, "random = 42"},
		{tree.ValueRecord{Name: "version", Change: "notify-before-ask", Value: json.RawMessage(`1`)}, "version of notify-before-ask = 1"},
	}
	for _, tc := range tests {
		if got := gist(tree.Node{Kind: tree.Value, Payload: tree.MustEncode(tc.rec)}); got != tc.want {
			t.Errorf("gist of %+v = %q, want %q", tc.rec, got, tc.want)
		}
	}
}

// A tool node in the inspector says who decided it and how it went, in its
// line and in its details: the decision and who made it, the rule, the
// approval that asked (linked to its question), how long it ran, its
// outcome.
func TestAToolNodeShowsItsAudit(t *testing.T) {
	q := tree.Node{ID: 2, Kind: tree.ElicitRequest, Ref: "1-1", Payload: tree.MustEncode(map[string]string{"kind": "approval"})}
	n := tree.Node{ID: 3, Parent: 2, Kind: tree.ToolCall, Ref: "1-2", Payload: tree.MustEncode(tree.ToolRecord{
		Agent: "travel", Tool: "book", Input: json.RawMessage(`{"seat":"4C"}`), Output: json.RawMessage(`"booked"`),
		Decision: "ask", DecidedBy: "user", Approval: "1-1", Outcome: "ok", Started: 1764150000000, Duration: 1500,
	})}
	in := inspector.Inspection{Conversation: tree.Conversation{ID: "c"}, Nodes: map[int64]tree.Node{2: q, 3: n}, OnPath: map[int64]bool{}}
	var buf bytes.Buffer
	if err := treeNode(in, n, true).Render(t.Context(), &buf); err != nil {
		t.Fatal(err)
	}
	doc, err := html.Parse(&buf)
	if err != nil {
		t.Fatal(err)
	}
	for id, want := range map[string]string{
		"audit-decision": "allowed by you",
		"audit-duration": "1 ms",
		"audit-outcome":  "ok",
		"node-decision":  "ask: allowed by you",
		"node-approval":  "1-1, question #2",
		"node-duration":  "1 ms",
		"node-outcome":   "ok",
	} {
		if got := texts(findAll(doc, byTestID(id))); len(got) != 1 || got[0] != want {
			t.Errorf("%s reads %q, want %q", id, got, want)
		}
	}
}

// The calls page says, beside a tool call's result, who decided it and
// how it went, and the arguments it ran with when the user edited the
// model's.
func TestTheCallsPageShowsAToolCallsAudit(t *testing.T) {
	c := &calls.Call{Node: 2, Ref: "1-1", Attempt: 1, Record: tree.SampleRecord{Response: &llm.Response{
		ToolCalls: []llm.ToolCall{{ID: "c1", Name: "book", Arguments: `{"seat":"3A"}`}, {ID: "c2", Name: "search", Arguments: `{}`}}}},
		Tools: []calls.Tool{
			{Call: llm.ToolCall{ID: "c1", Name: "book", Arguments: `{"seat":"3A"}`}, Node: 3, Output: json.RawMessage(`"booked"`),
				Record: tree.ToolRecord{Tool: "book", Input: json.RawMessage(`{"seat":"4C"}`), Decision: "ask", DecidedBy: "user", Outcome: "ok", Duration: 2000}},
			{Call: llm.ToolCall{ID: "c2", Name: "search", Arguments: `{}`}, Node: 4, Output: json.RawMessage(`[]`),
				Record: tree.ToolRecord{Tool: "search", Input: json.RawMessage(`{}`), Decision: "allow", DecidedBy: "default", Outcome: "ok"}},
		}}
	var buf bytes.Buffer
	if err := debugCall("c", c).Render(t.Context(), &buf); err != nil {
		t.Fatal(err)
	}
	doc, err := html.Parse(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := texts(findAll(doc, byTestID("audit-decision"))), []string{"allowed by you", "allowed by the default"}; !slices.Equal(got, want) {
		t.Errorf("decisions %q, want %q", got, want)
	}
	if got := texts(findAll(doc, byTestID("tool-edited"))); len(got) != 1 || got[0] != `Ran with arguments the user edited: {"seat":"4C"}` {
		t.Errorf("edited arguments shown: %q, want the booking's alone", got)
	}
}

// A message node names the files sent with it, each linked to where it is
// served, with its type and size; names are text, never markup.
func TestAMessageNodeNamesItsFiles(t *testing.T) {
	n := tree.Node{ID: 4, Kind: tree.UserMessage, Payload: tree.MustEncode(tree.Message{Text: "see these", Attachments: []tree.Attachment{
		{ID: "f1", Name: "a.csv", Type: "text/csv", Size: 2048}, {ID: "f2", Name: "<b>x</b>.png", Type: "image/png", Size: 12},
	}})}
	in := inspector.Inspection{Conversation: tree.Conversation{ID: "c"}, Nodes: map[int64]tree.Node{4: n}, OnPath: map[int64]bool{}}
	var buf bytes.Buffer
	if err := treeNode(in, n, true).Render(t.Context(), &buf); err != nil {
		t.Fatal(err)
	}
	doc, err := html.Parse(&buf)
	if err != nil {
		t.Fatal(err)
	}
	got := texts(findAll(doc, byTestID("node-files")))
	if want := "a.csv (text/csv, 2 KB); <b>x</b>.png (image/png, 12 bytes)"; len(got) != 1 || strings.Join(strings.Fields(got[0]), " ") != want {
		t.Errorf("files read %q, want %q", got, want)
	}
	var hrefs []string
	for _, a := range findAll(doc, byTestID("node-file")) {
		for _, at := range a.Attr {
			if at.Key == "href" {
				hrefs = append(hrefs, at.Val)
			}
		}
	}
	if want := []string{"/files/f1", "/files/f2"}; !slices.Equal(hrefs, want) {
		t.Errorf("links %q, want %q", hrefs, want)
	}
}
