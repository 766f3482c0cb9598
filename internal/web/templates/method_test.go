package templates

import (
	"encoding/json"
	"testing"

	"golang.org/x/net/html"

	"github.com/sweatpants-go/sweatpants/elicit"
	"github.com/sweatpants-go/sweatpants/internal/pageview"
)

// methodBody is the element of a card that protocol.js runs a method
// from: the one carrying data-method.
func methodBody(t testing.TB, doc *html.Node) *html.Node {
	t.Helper()
	found := findAll(doc, func(n *html.Node) bool { _, ok := attrOK(n, "data-method"); return ok })
	if len(found) != 1 {
		t.Fatalf("%d elements with data-method, want 1", len(found))
	}
	return found[0]
}

// The location and clipboard cards are method cards: each names its
// method, carries the request's input as the method's arguments and
// where the answer goes, says whether the page may answer "unsupported"
// and whether its progress is typed, and runs from its button, which
// keeps its test id.
func TestTheDeviceCardsAreMethodCards(t *testing.T) {
	loc, err := elicit.LocateDevice.Request("Where are you?", elicit.LocationInput{Accuracy: "high"})
	if err != nil {
		t.Fatal(err)
	}
	paste, err := elicit.ReadClipboard.Request("May I read it?", elicit.ClipboardReadInput{Purpose: "to quote it"})
	if err != nil {
		t.Fatal(err)
	}
	copyReq, err := elicit.WriteClipboard.Request("Copy this?", elicit.ClipboardWriteInput{Text: `<b>SWEAT-1234</b> & "more"`})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		req    elicit.Request
		button string
		args   map[string]any
		typed  bool
	}{
		{req: loc, button: "location-share", args: map[string]any{"accuracy": "high"}, typed: true},
		{req: paste, button: "clipboard-paste", args: map[string]any{"purpose": "to quote it"}},
		{req: copyReq, button: "clipboard-copy", args: map[string]any{"text": `<b>SWEAT-1234</b> & "more"`}},
	}
	for _, tc := range tests {
		t.Run(tc.req.Kind, func(t *testing.T) {
			tc.req.ID = "3-1"
			doc := renderCard(t, &pageview.ElicitView{Request: tc.req, State: pageview.Pending, Position: 1, Queued: 1})
			body := methodBody(t, doc)
			if got, want := attr(body, "data-method"), tc.req.Kind; got != want {
				t.Errorf("data-method = %q, want %q", got, want)
			}
			if got, want := attr(body, "data-answer-url"), "/c/c1/elicits/3-1"; got != want {
				t.Errorf("data-answer-url = %q, want %q", got, want)
			}
			var args map[string]any
			if err := json.Unmarshal([]byte(attr(body, "data-args")), &args); err != nil || !jsonEqual(args, tc.args) {
				t.Errorf("data-args = %q (%v), want %v", attr(body, "data-args"), err, tc.args)
			}
			if _, ok := attrOK(body, "data-unsupported"); !ok {
				t.Error("the card does not say the page may answer unsupported")
			}
			if _, ok := attrOK(body, "data-progress-data"); ok != tc.typed {
				t.Errorf("typed progress: got %v, want %v", ok, tc.typed)
			}
			button := one(t, doc, tc.button)
			if _, ok := attrOK(button, "data-run-method"); !ok {
				t.Errorf("%s does not run the method", tc.button)
			}
		})
	}
}

// A method of the application's, with no component of its own, is shown
// as a method card: the question, a button that runs it, the stage it
// reported last, decline and dismiss; everything the model or the user
// wrote is escaped, the arguments too. A request that is neither a method
// nor has a component is still a form.
func TestAnApplicationsMethodIsAMethodCard(t *testing.T) {
	type photo struct {
		URL string `json:"url"`
	}
	type stage struct {
		Step string `json:"step"`
	}
	req := elicit.Request{ID: "5-1", Kind: "take-photo", Agent: "camera", Message: `Smile <script>alert(1)</script>`,
		Input: []byte(`{"caption":"\"><script>alert(2)</script>"}`), Schema: elicit.MustSchemaFor[photo](),
		Progress: elicit.MustSchemaFor[stage](), Actions: []elicit.Action{elicit.Accept, elicit.Decline, elicit.Cancel, elicit.Unsupported}}
	e := &pageview.ElicitView{Request: req, State: pageview.Pending, Position: 1, Queued: 1,
		Stage: &elicit.Progress{Stage: "capturing", Message: "Taking the photo <now>"}}
	doc := renderCard(t, e)
	body := methodBody(t, doc)
	if got := attr(body, "data-method"); got != "take-photo" {
		t.Errorf("data-method = %q, want take-photo", got)
	}
	var args map[string]string
	if err := json.Unmarshal([]byte(attr(body, "data-args")), &args); err != nil || args["caption"] != `"><script>alert(2)</script>` {
		t.Errorf("data-args = %q (%v), want the input as written", attr(body, "data-args"), err)
	}
	if n := len(findAll(doc, byTag("script"))); n != 0 {
		t.Errorf("the card holds %d script elements, want none", n)
	}
	if got, want := textOf(one(t, doc, "method-run")), "Go ahead"; got != want {
		t.Errorf("the run button says %q, want %q", got, want)
	}
	if got, want := textOf(one(t, doc, "elicit-stage")), "Taking the photo <now>"; got != want {
		t.Errorf("the stage shows %q, want %q", got, want)
	}
	one(t, doc, "elicit-decline")
	one(t, doc, "elicit-cancel")
	one(t, doc, "device-problem")
	if len(findAll(doc, byTestID("elicit-form"))) != 0 {
		t.Error("a method card shows a form")
	}

	// Queued behind another question, its line carries the method, so
	// that a page without it answers "unsupported" without waiting its turn.
	e = &pageview.ElicitView{Request: req, State: pageview.Pending, Position: 2, Queued: 2}
	doc = renderCard(t, e)
	if got := attr(methodBody(t, doc), "data-testid"); got != "elicit-queued" {
		t.Errorf("a queued method's %q carries the method, want its queued line", got)
	}
	if len(findAll(doc, byTestID("method-run"))) != 0 {
		t.Error("a queued method can be run before its turn")
	}

	// Answered, it is not changed by filling in a form again: the method
	// answered it, not typing.
	e = &pageview.ElicitView{Request: req, State: pageview.Answered, Response: &elicit.Response{Action: elicit.Unsupported}}
	doc = renderCard(t, e)
	if len(findAll(doc, byTestID("change-answer"))) != 0 {
		t.Error("an answered method offers to change its answer")
	}
	if got, want := textOf(one(t, doc, "elicit-answer")), "Not available here: nothing on this page can do that."; got != want {
		t.Errorf("the answer reads %q, want %q", got, want)
	}

	// Neither progress nor "unsupported": a form of its schema, as before.
	req.Progress, req.Actions = nil, []elicit.Action{elicit.Accept, elicit.Decline}
	doc = renderCard(t, &pageview.ElicitView{Request: req, State: pageview.Pending, Position: 1, Queued: 1})
	one(t, doc, "elicit-form")
	if len(findAll(doc, func(n *html.Node) bool { _, ok := attrOK(n, "data-method"); return ok })) != 0 {
		t.Error("a request that is not a method is drawn as one")
	}
}

// A photo a method returned shows as the image, from its data URL; a value
// that only looks like one (anything but base64 after the prefix) shows as
// text, so a result can never make an attribute or a URL of its own.
func TestAPhotoAnswerShowsAsAnImage(t *testing.T) {
	type photo struct {
		Image string `json:"image" title:"Photo"`
	}
	req := elicit.Request{ID: "5-1", Kind: "take-photo", Message: "Smile", Schema: elicit.MustSchemaFor[photo](),
		Progress: elicit.MustSchemaFor[photo](), Actions: []elicit.Action{elicit.Accept, elicit.Unsupported}}
	for _, tc := range []struct {
		image string
		shown bool
	}{
		{"data:image/jpeg;base64,/9j/4AAQSkZJRg==", true},
		{"data:image/png;base64,iVBORw0KGgo=", true},
		{`data:image/png;base64,iVBO" onerror="alert(1)`, false},
		{"data:text/html;base64,PHNjcmlwdD4=", false},
		{"javascript:alert(1)", false},
	} {
		content, _ := json.Marshal(photo{Image: tc.image})
		e := &pageview.ElicitView{Request: req, State: pageview.Answered, Response: &elicit.Response{Action: elicit.Accept, Content: content}}
		doc := renderCard(t, e)
		imgs := findAll(doc, byTag("img"))
		switch {
		case tc.shown && (len(imgs) != 1 || attr(imgs[0], "src") != tc.image || attr(imgs[0], "alt") != "Photo"):
			t.Errorf("%q: %d images, want it shown as the photo", tc.image, len(imgs))
		case !tc.shown && len(imgs) != 0:
			t.Errorf("%q: shown as an image (src %q), want text", tc.image, attr(imgs[0], "src"))
		}
	}
}
