package mcpconn

import (
	"encoding/json"
	"net/url"
	"os"
	"reflect"
	"slices"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/sweatpants-go/sweatpants/elicit"
)

// The question of testdata/titled_options.json is the shape of the
// reference server's elicitation with titled options, written from the
// MCP specification (2025-11-25): every kind of field a server's question
// may have — formats, a titled single choice (oneOf of const and title),
// a legacy one (enumNames), untitled and titled multiple choices
// (items.enum, items.anyOf) — in an order that is not by name.

// titledSchema reads the fixture as the question's requested schema.
func titledSchema(t *testing.T) (json.RawMessage, *elicit.Schema) {
	t.Helper()
	raw, err := os.ReadFile("testdata/titled_options.json")
	if err != nil {
		t.Fatal(err)
	}
	s, err := formSchema(json.RawMessage(raw))
	if err != nil {
		t.Fatalf("the question cannot be shown as a form: %v", err)
	}
	return raw, s
}

// serverTakes reports why the server's SDK refuses content as the answer
// to the question of schema raw, or nil: the check the official Go SDK
// makes of an answer before it is sent.
func serverTakes(t *testing.T, raw json.RawMessage, content json.RawMessage) error {
	t.Helper()
	var s jsonschema.Schema
	if err := json.Unmarshal(raw, &s); err != nil {
		t.Fatal(err)
	}
	resolved, err := s.Resolve(nil)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(content, &m); err != nil {
		t.Fatal(err)
	}
	return resolved.Validate(m)
}

// TestATitledQuestionIsAFormOfChoices: the fields keep the question's
// order; titled options are choices shown by their titles, whose values
// are the consts.
func TestATitledQuestionIsAFormOfChoices(t *testing.T) {
	_, s := titledSchema(t)
	want := []string{"name", "email", "homepage", "birthdate", "meetAt", "age", "subscribe", "size", "pet", "color", "toppings", "friends"}
	if !slices.Equal(s.FieldOrder(), want) {
		t.Errorf("the fields are in the order %q, want the question's %q", s.FieldOrder(), want)
	}
	for _, tt := range []struct {
		field   string
		choices *elicit.Schema
		values  []string
		labels  []string
	}{
		{"pet", s.Properties["pet"], []string{"fish-1", "cat-2", "dog-3"}, []string{"Goldfish", "Cat", "Dog"}},
		{"color", s.Properties["color"], []string{"#f00", "#0f0", "#00f"}, []string{"Red", "Green", "Blue"}},
		{"size", s.Properties["size"], []string{"small", "medium", "large"}, []string{"small", "medium", "large"}},
		{"friends", s.Properties["friends"].Items, []string{"fish-1", "cat-2", "dog-3"}, []string{"Goldfish", "Cat", "Dog"}},
		{"toppings", s.Properties["toppings"].Items, []string{"cheese", "olives", "basil"}, []string{"cheese", "olives", "basil"}},
	} {
		var labels []string
		for _, v := range tt.choices.Enum {
			labels = append(labels, tt.choices.Label(v))
		}
		if !slices.Equal(tt.choices.Enum, tt.values) || !slices.Equal(labels, tt.labels) {
			t.Errorf("%s offers %q shown as %q, want %q shown as %q", tt.field, tt.choices.Enum, labels, tt.values, tt.labels)
		}
	}
}

// TestAFormsAnswerIsOneTheServerTakes: what the page sends for the
// question (a switch's hidden false first, a list typed into as a text
// box sends an empty value) becomes an answer the server's SDK takes — the consts of
// the options picked, lists of them, no field left empty sent at all —
// and an answer it would refuse is refused here, field by field, in the
// form's words, so that the user can fix it while the question waits.
func TestAFormsAnswerIsOneTheServerTakes(t *testing.T) {
	raw, s := titledSchema(t)
	for _, tt := range []struct {
		name string
		form url.Values
		want map[string]any
	}{
		{"every field", url.Values{
			"name": {"Ada"}, "email": {"ada@example.com"}, "homepage": {"https://ada.example/about"},
			"birthdate": {"1990-12-10"}, "meetAt": {"2026-12-31T18:30:00+01:00"}, "age": {"36"},
			"subscribe": {"false", "true"}, "size": {"large"}, "pet": {"cat-2"}, "color": {"#0f0"},
			"toppings": {"", "cheese", "basil"}, "friends": {"", "fish-1", "dog-3"},
		}, map[string]any{
			"name": "Ada", "email": "ada@example.com", "homepage": "https://ada.example/about",
			"birthdate": "1990-12-10", "meetAt": "2026-12-31T18:30:00+01:00", "age": 36.0,
			"subscribe": true, "size": "large", "pet": "cat-2", "color": "#0f0",
			"toppings": []any{"cheese", "basil"}, "friends": []any{"fish-1", "dog-3"},
		}},
		{"the optional fields emptied", url.Values{
			"name": {"Ada"}, "email": {""}, "homepage": {" "}, "birthdate": {""}, "meetAt": {""}, "age": {""},
			"subscribe": {"false"}, "size": {""}, "pet": {"fish-1"}, "color": {""},
			"toppings": {"", "olives"}, "friends": {""},
		}, map[string]any{"name": "Ada", "subscribe": false, "pet": "fish-1", "toppings": []any{"olives"}}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			content, errs := s.FromForm(tt.form)
			if len(errs) > 0 {
				t.Fatalf("the answer is refused: %v", errs)
			}
			var got map[string]any
			if err := json.Unmarshal(content, &got); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("the answer is %s, want %v", content, tt.want)
			}
			if err := serverTakes(t, raw, content); err != nil {
				t.Errorf("the server's SDK refuses the answer %s: %v", content, err)
			}
		})
	}

	bad := url.Values{
		"name": {"Ada"}, "email": {"ada at example"}, "homepage": {"ada.example"}, "birthdate": {"10/12/1990"},
		"meetAt": {"2026-12-31 18:30"}, "subscribe": {"false"}, "pet": {"Goldfish"}, "color": {"Red"},
		"toppings": {""}, "friends": {"", "fish-1", "[\"fish-1\"]"},
	}
	_, errs := s.FromForm(bad)
	want := elicit.FieldErrors{
		{Field: "email", Message: "must be an email address, like name@example.com"},
		{Field: "homepage", Message: "must be a full address (URI), like https://example.com/page"},
		{Field: "birthdate", Message: "must be a date, like 2026-12-31"},
		{Field: "meetAt", Message: "must be a date and time with its offset from UTC, like 2026-12-31T18:30:00+01:00"},
		{Field: "pet", Message: "must be one of: Goldfish, Cat, Dog"},
		{Field: "color", Message: "must be one of: Red, Green, Blue"},
		{Field: "toppings", Message: "is required"},
		{Field: "friends", Message: "must be chosen from: Goldfish, Cat, Dog"},
	}
	if !reflect.DeepEqual(errs, want) {
		t.Errorf("a bad answer is refused with\n%v\nwant\n%v", errs, want)
	}
}
