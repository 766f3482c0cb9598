package component_test

import (
	"bytes"
	"encoding/json"
	"net/url"
	"strings"
	"testing"

	"github.com/sweatpants-go/sweatpants/component"
	"github.com/sweatpants-go/sweatpants/elicit"
)

type pick struct {
	Seat string `json:"seat" title:"Your seat" default:"1A"`
}

// A field the server refused is marked where the component draws it: its
// input invalid and described by its message, which says the field by its
// title.
func TestARefusedFieldIsMarkedInPlace(t *testing.T) {
	q := &component.Question{ID: "4-2", Schema: elicit.MustSchemaFor[pick](),
		Errors: elicit.FieldErrors{{Field: "seat", Message: "is not free"}}}

	aria := component.FieldAria(q, "seat", "seat-hint")
	if got, want := aria["aria-invalid"], "true"; got != want {
		t.Errorf("aria-invalid = %v, want %v", got, want)
	}
	if got, want := aria["aria-describedby"], "seat-hint "+component.ErrorID(q, "seat"); got != want {
		t.Errorf("aria-describedby = %v, want %v", got, want)
	}
	if got := component.FieldAria(q, "meal"); len(got) != 0 {
		t.Errorf("a field with no problem is marked %v", got)
	}

	var buf bytes.Buffer
	if err := component.FieldError(q, "seat").Render(t.Context(), &buf); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`id="` + component.ErrorID(q, "seat") + `"`, `role="alert"`, "Your seat is not free"} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("the error %s does not hold %s", buf.String(), want)
		}
	}
	buf.Reset()
	if err := component.FieldError(q, "meal").Render(t.Context(), &buf); err != nil || buf.Len() != 0 {
		t.Errorf("a field with no problem shows %q (%v)", buf.String(), err)
	}
}

// An input shows what the user last sent, else the answer given, else
// the schema's default.
func TestAnInputShowsWhatWasLastSaid(t *testing.T) {
	schema := elicit.MustSchemaFor[pick]()
	answer := &elicit.Response{Action: elicit.Accept, Content: json.RawMessage(`{"seat":"3C"}`)}
	tests := []struct {
		name string
		q    component.Question
		want string
	}{
		{"asked", component.Question{Schema: schema}, "1A"},
		{"answered", component.Question{Schema: schema, State: component.Answered, Answer: answer}, "3C"},
		{"sent and refused", component.Question{Schema: schema, Answer: answer, Submitted: url.Values{"seat": {"9Z"}}}, "9Z"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.q.Value("seat"); got != tc.want {
				t.Errorf("Value(seat) = %q, want %q", got, tc.want)
			}
		})
	}
}

// A component reads its question's input as its kind's input type.
func TestInputDecodesTheKindsInput(t *testing.T) {
	type offer struct{ Flights []string }
	q := &component.Question{Input: json.RawMessage(`{"Flights":["LZ440","SP101"]}`)}
	if got := component.Input[offer](q); len(got.Flights) != 2 || got.Flights[1] != "SP101" {
		t.Errorf("Input = %+v", got)
	}
	if got := component.Input[offer](&component.Question{Input: json.RawMessage(`not json`)}); got.Flights != nil {
		t.Errorf("an input that does not decode gives %+v, want the zero value", got)
	}
}
