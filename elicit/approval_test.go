package elicit_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/sweatpants-go/sweatpants/elicit"
	"github.com/sweatpants-go/sweatpants/internal/kindset"
)

// TestAnApprovalsEditedArgumentsMustFitTheTool checks the approval kind's
// own rules: edited arguments are JSON that fits the tool's input schema
// and come only with an allow; a reason comes only with a deny.
func TestAnApprovalsEditedArgumentsMustFitTheTool(t *testing.T) {
	schema, err := json.Marshal(elicit.MustSchemaFor[struct {
		City string `json:"city" min:"2"`
	}]())
	if err != nil {
		t.Fatal(err)
	}
	req, err := elicit.Approve.Request("May the assistant look up the weather?", elicit.ApprovalInput{
		Agent: "weather", Tool: "forecast", Args: `{"city": "Lisbon"}`, Schema: schema})
	if err != nil {
		t.Fatal(err)
	}
	ks := kindset.New(elicit.Approve)
	for _, c := range []struct {
		answer  string
		refused string // "" when accepted
	}{
		{`{"choice":"once"}`, ""},
		{`{"choice":"conversation","args":"{\"city\":\"Porto\"}"}`, ""},
		{`{"choice":"deny","reason":"not now"}`, ""},
		{`{"choice":"once","args":"{\"city\":"}`, "must be JSON"},
		{`{"choice":"once","args":"{\"city\":\"P\"}"}`, "do not fit the tool's input"},
		{`{"choice":"deny","args":"{\"city\":\"Porto\"}"}`, "only to allow"},
		{`{"choice":"once","reason":"why not"}`, "only with deny"},
		{`{"choice":"maybe"}`, "choice"},
	} {
		err := ks.Check(req, elicit.Response{Action: elicit.Accept, Content: json.RawMessage(c.answer)})
		switch {
		case c.refused == "" && err != nil:
			t.Errorf("%s refused: %v", c.answer, err)
		case c.refused != "" && (err == nil || !strings.Contains(err.Error(), c.refused)):
			t.Errorf("%s: err = %v, want it refused saying %q", c.answer, err, c.refused)
		}
	}
}
