package inspector_test

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/sweatpants-go/sweatpants/elicit"
	"github.com/sweatpants-go/sweatpants/internal/inspector"
	"github.com/sweatpants-go/sweatpants/internal/tree"
)

// A method's question and answer read in the inspector as the call they
// are: the method with its arguments, then how the call ended with its
// result, the progress recorded with the answer listed beside it. A
// question that calls no method is no call.
func TestAMethodsCallReadsAsACall(t *testing.T) {
	svc, r := newRecorder(t)
	m := r.add(0, false, message(tree.UserMessage, "Where am I?"))
	req := elicit.Request{ID: "1-1", Kind: "location", Message: "Where are you?", Input: json.RawMessage(`{"accuracy":"high"}`),
		Schema: &elicit.Schema{Type: "object"}, Progress: &elicit.Schema{Type: "object"}}
	q := r.add(m.ID, false, tree.Node{Kind: tree.ElicitRequest, Ref: "1-1", Payload: tree.MustEncode(req)})
	a := r.add(q.ID, false, tree.Node{Kind: tree.ElicitResponse, Ref: "1-1", Payload: tree.MustEncode(elicit.Response{
		Action: elicit.Accept, Content: json.RawMessage(`{"lat":38.72,"lng":-9.14}`),
		Progress: []elicit.Progress{{Stage: "requesting-permission"}, {Stage: "acquiring", Message: "<b>near</b>"}}})})
	form := elicit.Request{ID: "1-2", Kind: "form", Message: "A note?", Schema: &elicit.Schema{Type: "object"}}
	f := r.add(a.ID, false, tree.Node{Kind: tree.ElicitRequest, Ref: "1-2", Payload: tree.MustEncode(form)})

	in, err := inspector.Inspect(t.Context(), svc, session, r.conv, inspector.Query{})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := in.Calls[q.ID].Words, "location(accuracy high)"; got != want {
		t.Errorf("the question reads %q, want %q", got, want)
	}
	call := in.Calls[a.ID]
	if got, want := call.Words, "location → done (lat 38.72, lng -9.14)"; got != want {
		t.Errorf("the answer reads %q, want %q", got, want)
	}
	// The words are text: the page's one escaping boundary escapes them.
	if got, want := call.Progress, []string{"requesting-permission", "acquiring: <b>near</b>"}; !slices.Equal(got, want) {
		t.Errorf("the answer's progress reads %q, want %q", got, want)
	}
	if c, ok := in.Calls[f.ID]; ok {
		t.Errorf("a form's question reads as a call: %+v", c)
	}
}
