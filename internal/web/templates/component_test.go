package templates

import (
	"bytes"
	"context"
	"io"
	"net/url"
	"strings"
	"testing"

	"github.com/a-h/templ"

	"github.com/sweatpants-go/sweatpants/component"
	"github.com/sweatpants-go/sweatpants/elicit"
	"github.com/sweatpants-go/sweatpants/internal/pageview"
	"github.com/sweatpants-go/sweatpants/internal/tree"
)

// An application's component is drawn from the public view of its
// question, as the card shows it: what was asked, where it stands, what
// was wrong with a refused submission, and where its form posts (a
// changed answer's place once answered).
func TestAnApplicationsComponentSeesItsQuestion(t *testing.T) {
	type note struct {
		Text string `json:"text"`
	}
	req := elicit.Request{ID: "4-2", Kind: "note", Agent: "notes", Message: "What should I note?",
		Input: []byte(`{"hint":"short"}`), Schema: elicit.MustSchemaFor[note](), Actions: []elicit.Action{elicit.Accept, elicit.Decline}}
	tests := []struct {
		name       string
		view       pageview.ElicitView
		state      component.State
		action     string
		value      string
		fieldError string
	}{
		{
			name: "pending, refused", state: component.Pending, action: "@post('/c/c1/elicits/4-2',",
			view: pageview.ElicitView{Request: req, State: pageview.Pending, Values: url.Values{"text": {"milk"}},
				Errors: elicit.FieldErrors{{Field: "text", Message: "is too short"}}},
			value: "milk", fieldError: "is too short",
		},
		{
			name: "answered", state: component.Answered, action: "@post('/c/c1/elicits/4-2/change',",
			view:  pageview.ElicitView{Request: req, State: pageview.Answered, Response: &elicit.Response{Action: elicit.Accept, Content: []byte(`{"text":"eggs"}`)}},
			value: "eggs",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var got *component.Question
			picker := func(q *component.Question) templ.Component {
				got = q
				return templ.ComponentFunc(func(ctx context.Context, w io.Writer) error {
					return component.FieldError(q, "text").Render(ctx, w)
				})
			}
			ctx := WithElicitComponents(t.Context(), component.Set{"note": picker})
			it := &pageview.Item{ID: 9, Kind: tree.ElicitRequest, Agent: "notes", Elicit: &tc.view}
			var buf bytes.Buffer
			if err := Elicit("c1", it).Render(ctx, &buf); err != nil {
				t.Fatal(err)
			}
			if got == nil {
				t.Fatal("the application's component was not drawn")
			}
			if got.Conversation != "c1" || got.ID != req.ID || got.Kind != "note" || got.Agent != "notes" || got.Message != req.Message {
				t.Errorf("the question is %+v, want the one asked", got)
			}
			if in := component.Input[struct{ Hint string }](got); in.Hint != "short" {
				t.Errorf("its input decodes as %+v, want the hint", in)
			}
			if got.State != tc.state || !strings.HasPrefix(got.Action, tc.action) {
				t.Errorf("state %s, action %q; want %s, posting with %s", got.State, got.Action, tc.state, tc.action)
			}
			if v := got.Value("text"); v != tc.value {
				t.Errorf("text shows %q, want %q", v, tc.value)
			}
			if tc.fieldError != "" && !strings.Contains(buf.String(), tc.fieldError) {
				t.Errorf("the card does not show %q:\n%s", tc.fieldError, buf.String())
			}
		})
	}
}
