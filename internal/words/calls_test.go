package words_test

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/sweatpants-go/sweatpants/elicit"
	"github.com/sweatpants-go/sweatpants/internal/tree"
	"github.com/sweatpants-go/sweatpants/internal/words"
)

// A method's question and answer read as the call they are: the method
// with its arguments, then how it ended with its result, and the progress
// recorded with the answer listed beside it.
func TestCallWords(t *testing.T) {
	req := elicit.Request{Kind: "get-location", Message: "Where are you?", Input: json.RawMessage(`{"accuracy":"high"}`), Progress: &elicit.Schema{Type: "object"}}
	progress := []elicit.Progress{
		{Stage: "requesting-permission", Data: json.RawMessage(`{"status":"requesting-permission"}`)},
		{Stage: "acquiring", Message: "Finding\nyou"},
		{Data: json.RawMessage(`{"status":"acquiring"}`)},
	}
	done := elicit.Response{Action: elicit.Accept, Content: json.RawMessage(`{"lng":-9.14,"lat":38.72}`), Progress: progress}

	if got, want := words.Node(tree.Node{ID: 2, Kind: tree.ElicitRequest, Payload: tree.MustEncode(req)}), "call #2 get-location(accuracy high)"; got != want {
		t.Errorf("Node(the call) = %q, want %q", got, want)
	}
	if got, want := words.Called(req, done), "get-location → done (lat 38.72, lng -9.14)"; got != want {
		t.Errorf("Called(done) = %q, want %q", got, want)
	}
	if got, want := words.ProgressOf(progress), []string{"requesting-permission", "acquiring: Finding you", "status acquiring"}; !slices.Equal(got, want) {
		t.Errorf("ProgressOf = %q, want %q", got, want)
	}
	if got, want := words.Answer(done), "accept: lat 38.72, lng -9.14 after requesting-permission, acquiring, status acquiring"; got != want {
		t.Errorf("Answer(done) = %q, want %q", got, want)
	}
	upload := elicit.Response{Action: elicit.Cancel, Progress: []elicit.Progress{{Stage: "uploading", Message: "10%"}, {Stage: "uploading", Message: "60%"}, {Stage: "stored"}}}
	if got, want := words.Answer(upload), "cancel after uploading, stored"; got != want {
		t.Errorf("Answer(a file's) = %q, want %q: each stage once", got, want)
	}
	for _, c := range []struct {
		a    elicit.Action
		want string
	}{{elicit.Denied, "get-location → denied"}, {elicit.Unsupported, "get-location → unsupported"}, {elicit.Decline, "get-location → declined"}, {elicit.Cancel, "get-location → cancelled"}} {
		if got := words.Called(req, elicit.Response{Action: c.a}); got != c.want {
			t.Errorf("Called(%s) = %q, want %q", c.a, got, c.want)
		}
	}
	if got, want := words.Invoked(elicit.Request{Kind: "notify", Progress: req.Progress}), "notify()"; got != want {
		t.Errorf("Invoked(no arguments) = %q, want %q", got, want)
	}
	if words.IsCall(elicit.Request{Kind: "form"}) {
		t.Error("a form's question is no method's call")
	}
}
