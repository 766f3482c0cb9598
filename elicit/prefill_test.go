package elicit_test

import (
	"net/url"
	"testing"

	"github.com/sweatpants-go/sweatpants/elicit"
)

type prefillForm struct {
	City   string   `json:"city" default:"Oslo"`
	Nights int      `json:"nights"`
	Extras []string `json:"extras" enum:"breakfast,parking" default:"parking"`
}

// A form shown again keeps what the user typed over the answer they gave
// before, and the answer over the schema's default.
func TestAFormIsFilledWithTheSubmissionTheAnswerOrTheDefault(t *testing.T) {
	s := elicit.MustSchemaFor[prefillForm]()
	answer := (&elicit.Response{Action: elicit.Accept, Content: []byte(`{"city":"Rome","nights":3,"extras":["breakfast"]}`)}).Fields()
	typed := url.Values{"city": {"Lima"}, "extras": {}}
	for _, c := range []struct {
		name, field, want string
		submitted         url.Values
		answer            map[string]any
	}{
		{"default", "city", "Oslo", nil, nil},
		{"answer over default", "city", "Rome", nil, answer},
		{"a number answered", "nights", "3", nil, answer},
		{"submission over answer", "city", "Lima", typed, answer},
		{"nothing submitted for a field of a submission", "nights", "", typed, answer},
	} {
		if got := s.FormValue(c.field, c.submitted, c.answer); got != c.want {
			t.Errorf("%s: %s = %q, want %q", c.name, c.field, got, c.want)
		}
	}
	if !s.FormSelected("extras", "parking", nil, nil) || s.FormSelected("extras", "breakfast", nil, nil) {
		t.Error("the default's option is not the one picked")
	}
	if !s.FormSelected("extras", "breakfast", nil, answer) || s.FormSelected("extras", "parking", nil, answer) {
		t.Error("the answer's option is not the one picked")
	}
	if s.FormSelected("extras", "breakfast", typed, answer) {
		t.Error("a submission that picked nothing shows the answer's option picked")
	}
	if (&elicit.Response{Action: elicit.Decline}).Fields() != nil || (*elicit.Response)(nil).Fields() != nil {
		t.Error("a declined or missing response has fields")
	}
}
