package templates

import (
	"bytes"
	"encoding/json"
	"net/url"
	"slices"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"github.com/sweatpants-go/sweatpants/elicit"
	"github.com/sweatpants-go/sweatpants/internal/pageview"
	"github.com/sweatpants-go/sweatpants/internal/tree"
)

// bookingCall is an approval of a booking, its reason written by a model
// that tries to inject markup.
func bookingCall(t testing.TB) elicit.Request {
	t.Helper()
	type booking struct {
		Flight string   `json:"flight"`
		Seat   string   `json:"seat"`
		Note   string   `json:"note,omitempty"`
		Extras []string `json:"extras,omitempty"`
	}
	req, err := elicit.Approve.Request("Allow book-flight?", elicit.ApprovalInput{
		Agent: "flights", Tool: "book-flight", Description: "Book a seat on a flight",
		Args:    "{\n  \"seat\": \"3A\",\n  \"flight\": \"SP 101\",\n  \"note\": \"" + strings.Repeat("window please ", 12) + "\",\n  \"extras\": [\"meal\", \"bag\"]\n}",
		Effects: []string{"writes", "spends"},
		Reason:  `The user said "book it" <script>alert(1)</script>`,
		Schema:  tree.MustEncode(elicit.MustSchemaFor[booking]()),
	})
	if err != nil {
		t.Fatal(err)
	}
	req.ID = "4-2"
	return req
}

// renderCard renders an elicit card as the chat page does and parses it as
// a browser would.
func renderCard(t testing.TB, e *pageview.ElicitView) *html.Node {
	t.Helper()
	var buf bytes.Buffer
	it := &pageview.Item{ID: 9, Kind: tree.ElicitRequest, Agent: "flights", Elicit: e}
	if err := Elicit("c1", it).Render(t.Context(), &buf); err != nil {
		t.Fatal(err)
	}
	doc, err := html.Parse(&buf)
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

func one(t testing.TB, doc *html.Node, id string) *html.Node {
	t.Helper()
	found := findAll(doc, byTestID(id))
	if len(found) != 1 {
		t.Fatalf("%d elements %q, want 1", len(found), id)
	}
	return found[0]
}

// An approval card says which agent's tool is called, what it does, with
// which arguments (an object's by name, in the order the model wrote them;
// a long value folded behind its start), and why, in the model's words
// shown as text; it offers the four answers and nothing else, and the
// arguments' editor, closed, holds the call's arguments.
func TestAnApprovalCardShowsTheCallReadably(t *testing.T) {
	doc := renderCard(t, &pageview.ElicitView{Request: bookingCall(t), State: pageview.Pending, Position: 1, Queued: 1})

	if got := textOf(one(t, doc, "approval-tool")); got != "book-flight" {
		t.Errorf("tool %q", got)
	}
	if got := textOf(one(t, doc, "approval-agent")); got != "of flights" {
		t.Errorf("agent %q", got)
	}
	effects := findAll(one(t, doc, "approval-effects"), byTag("li"))
	if got, want := texts(effects), []string{"changes data", "spends money"}; !slices.Equal(got, want) {
		t.Errorf("effects %q, want %q", got, want)
	}
	args := one(t, doc, "approval-args")
	if got, want := texts(findAll(args, byTag("dt"))), []string{"seat", "flight", "note", "extras"}; !slices.Equal(got, want) {
		t.Errorf("argument names %q, want %q, in the order written", got, want)
	}
	dds := findAll(args, byTag("dd"))
	if got := textOf(dds[0]); got != "3A" {
		t.Errorf("seat shows %q, want the string as text", got)
	}
	if fold := findAll(dds[2], byTestID("arg-fold")); len(fold) != 1 {
		t.Errorf("the long note is not folded: %q", textOf(dds[2]))
	} else if start := textOf(findAll(fold[0], byTag("summary"))[0]); !strings.HasPrefix(start, "window please") || !strings.HasSuffix(start, "…") {
		t.Errorf("the folded note starts %q", start)
	}
	if pre := findAll(dds[3], byTag("pre")); len(pre) != 1 || !strings.Contains(textOf(pre[0]), `"meal"`) {
		t.Errorf("the list of extras shows %q, want indented JSON", textOf(dds[3]))
	}

	reason := one(t, doc, "approval-reason")
	if got := textOf(reason); !strings.Contains(got, `<script>alert(1)</script>`) {
		t.Errorf("the reason reads %q, want the model's words as text", got)
	}
	if scripts := findAll(doc, byTag("script")); len(scripts) > 0 {
		t.Errorf("the model's reason became a script element")
	}

	var answers []string
	for _, b := range findAll(doc, byTag("button")) {
		answers = append(answers, textOf(b))
	}
	if want := []string{"Allow once", "Allow for this conversation", "Always allow", "Deny"}; !slices.Equal(answers, want) {
		t.Errorf("buttons %q, want %q", answers, want)
	}
	for _, b := range findAll(doc, byTag("button")) {
		if strings.Contains(attr(b, "class"), "primary") {
			t.Errorf("%q is primary for a call that spends money", textOf(b))
		}
	}
	edit := one(t, doc, "approval-edit")
	if _, open := attrOK(edit, "open"); open {
		t.Error("the editor is open before anything was edited")
	}
	var got, want any
	json.Unmarshal([]byte(textOf(one(t, doc, "approval-args-editor"))), &got)
	in := ElicitInput[elicit.ApprovalInput](&pageview.ElicitView{Request: bookingCall(t)})
	json.Unmarshal([]byte(in.Args), &want)
	if !jsonEqual(got, want) {
		t.Errorf("the editor holds %v, want the call's arguments %v", got, want)
	}
}

// Edited arguments the server refused come back in the open editor as
// they were typed, marked and described by what is wrong: nothing the
// user wrote is lost.
func TestARefusedEditKeepsWhatWasTyped(t *testing.T) {
	typed := `{"flight": "SP 101", "seat": 4C}`
	e := &pageview.ElicitView{Request: bookingCall(t), State: pageview.Pending, Position: 1, Queued: 1,
		Values: url.Values{"choice": {"once"}, "args": {typed}},
		Errors: elicit.FieldErrors{{Field: "args", Message: "must be JSON: invalid character '4'"}}}
	doc := renderCard(t, e)
	if _, open := attrOK(one(t, doc, "approval-edit"), "open"); !open {
		t.Error("the editor is closed after its arguments were refused")
	}
	editor := one(t, doc, "approval-args-editor")
	if got := textOf(editor); got != typed {
		t.Errorf("the editor holds %q, want what was typed, %q", got, typed)
	}
	if attr(editor, "aria-invalid") != "true" || !strings.Contains(attr(editor, "aria-describedby"), ErrorID(e, "args")) {
		t.Errorf("the editor is not marked as refused: %v", editor.Attr)
	}
	if got := textOf(one(t, doc, "error-args")); got != "Arguments must be JSON: invalid character '4'" {
		t.Errorf("the problem reads %q", got)
	}
}

// An answered approval says what was decided and keeps the call in view,
// with the arguments it ran with when they were edited; it cannot be
// changed: the call may have run.
func TestAnAnsweredApprovalSaysWhatWasDecided(t *testing.T) {
	for _, c := range []struct {
		name, content, want string
		edited              bool
	}{
		{"once", `{"choice":"once"}`, "Allowed once", false},
		{"edited", `{"choice":"conversation","args":"{\"flight\":\"SP 101\",\"seat\":\"4C\"}"}`, "Allowed for this conversation, with the arguments you edited", true},
		{"always", `{"choice":"always"}`, "Always allowed", false},
		{"denied", `{"choice":"deny","reason":"too dear"}`, "Denied: “too dear”", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := &pageview.ElicitView{Request: bookingCall(t), State: pageview.Answered,
				Response: &elicit.Response{Action: elicit.Accept, Content: json.RawMessage(c.content)}}
			doc := renderCard(t, e)
			if got := textOf(one(t, doc, "elicit-answer")); got != c.want {
				t.Errorf("answer %q, want %q", got, c.want)
			}
			one(t, doc, "approval-call")
			if got := len(findAll(doc, byTestID("approval-edited-args"))); got != map[bool]int{false: 0, true: 1}[c.edited] {
				t.Errorf("%d lists of edited arguments", got)
			}
			if len(findAll(doc, byTestID("change-answer"))) > 0 || len(findAll(doc, byTag("form"))) > 0 {
				t.Error("an answered approval offers to change its answer")
			}
		})
	}
}

// A long value, or one of several lines, is folded behind its first
// line; a short one shows whole.
func TestLongArgumentsFold(t *testing.T) {
	for _, c := range []struct {
		args  string
		start string // "" for not folded
	}{
		{`{"a": "short"}`, ""},
		{`{"a": "two\nlines"}`, "two…"},
		{`{"a": "` + strings.Repeat("x", 121) + `"}`, strings.Repeat("x", 60) + "…"},
		{`{"a": {"b": 1}}`, "{…"},
	} {
		got := callArgs(c.args)[0]
		if got.Fold != (c.start != "") || got.Start != c.start {
			t.Errorf("callArgs(%s): folded %v behind %q, want %q", c.args, got.Fold, got.Start, c.start)
		}
	}
}

func attrOK(n *html.Node, key string) (string, bool) {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val, true
		}
	}
	return "", false
}

func jsonEqual(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}
