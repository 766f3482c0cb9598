package elicit_test

import (
	"encoding/json"
	"testing"

	"github.com/sweatpants-go/sweatpants/backend/elicit"
)

// The approval kind is built in: every registry checks an approval's
// answer by its rules, and the tool's input schema it carries describes
// itself as an object.
func TestApprovalIsABuiltInKind(t *testing.T) {
	ks := elicit.NewKinds(elicit.BuiltinKinds()...)
	if !ks.Has(elicit.Approve.Name) {
		t.Fatalf("the built-in kinds lack %q", elicit.Approve.Name)
	}
	if s := elicit.Approve.InputSchema.Properties["schema"]; s == nil || s.Type != "object" {
		t.Errorf("the input's schema property is %+v, want an object", s)
	}
	type note struct {
		Text string `json:"text" max:"10"`
	}
	req, err := elicit.Approve.Request("Allow remember_note?", elicit.ApprovalInput{Agent: "assistant", Tool: "remember_note", Args: `{"text": "milk"}`, Schema: elicit.MustSchemaFor[note]()})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, content, field string
	}{
		{"allowed once", `{"choice":"once"}`, ""},
		{"allowed with edited arguments", `{"choice":"once","args":"{\"text\":\"eggs\"}"}`, ""},
		{"denied with a reason", `{"choice":"deny","reason":"not now"}`, ""},
		{"edited arguments that do not fit", `{"choice":"conversation","args":"{\"text\":\"far too long a note\"}"}`, "args"},
		{"edited arguments of a denial", `{"choice":"deny","args":"{}"}`, "args"},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := ks.Check(req, elicit.Response{Action: elicit.Accept, Content: json.RawMessage(c.content)})
			fe, _ := err.(elicit.FieldErrors)
			switch {
			case c.field == "" && err != nil:
				t.Errorf("refused: %v", err)
			case c.field != "" && fe.For(c.field) == "":
				t.Errorf("got %v, want an error on %s", err, c.field)
			}
		})
	}
	if got := ks.Automatic(req); got.Action != elicit.Cancel {
		t.Errorf("answered without a person: %+v, want cancel (nobody approves)", got)
	}
}
