package elicit

import (
	"encoding/json"
	"net/url"
	"testing"
)

// TestFormatsAreChecked: a string of format email, uri, date or
// date-time takes only an answer of that format, and says what one looks
// like; another format (multiline) checks nothing.
func TestFormatsAreChecked(t *testing.T) {
	for _, tt := range []struct {
		format, good, bad, want string
	}{
		{"email", "ada@example.com", "Ada <ada@example.com>", "must be an email address, like name@example.com"},
		{"uri", "https://example.com/a?b=c", "example.com", "must be a full address (URI), like https://example.com/page"},
		{"date", "2026-02-28", "2026-02-30", "must be a date, like 2026-12-31"},
		{"date-time", "2026-12-31T18:30:00Z", "2026-12-31T18:30", "must be a date and time with its offset from UTC, like 2026-12-31T18:30:00+01:00"},
		{"multiline", "any\nthing", "", ""},
	} {
		t.Run(tt.format, func(t *testing.T) {
			s := &Schema{Type: "object", Properties: map[string]*Schema{"f": {Type: "string", Format: tt.format}}}
			answer := func(v string) string {
				b, _ := json.Marshal(map[string]string{"f": v})
				return string(b)
			}
			if errs := s.Validate(json.RawMessage(answer(tt.good))); len(errs) > 0 {
				t.Errorf("%q is refused: %v", tt.good, errs)
			}
			if tt.bad == "" {
				return
			}
			if got := s.Validate(json.RawMessage(answer(tt.bad))).For("f"); got != tt.want {
				t.Errorf("%q is refused with %q, want %q", tt.bad, got, tt.want)
			}
		})
	}
}

// TestAnOptionalListLeftEmptyIsLeftOut: a list given nothing but empty
// values (a text box emptied) is left out of the answer, not sent as null,
// which no list's schema takes; a required one is reported as required.
func TestAnOptionalListLeftEmptyIsLeftOut(t *testing.T) {
	s := &Schema{Type: "object", Order: []string{"tags", "must"}, Required: []string{"must"}, Properties: map[string]*Schema{
		"tags": {Type: "array", Items: &Schema{Type: "string"}},
		"must": {Type: "array", Items: &Schema{Type: "string", Enum: []string{"a", "b"}}},
	}}
	raw, errs := s.FromForm(url.Values{"tags": {""}, "must": {"", "a"}})
	if len(errs) > 0 || string(raw) != `{"must":["a"]}` {
		t.Errorf("the answer is %s (%v), want {\"must\":[\"a\"]}", raw, errs)
	}
	if _, errs := s.FromForm(url.Values{"tags": {" "}, "must": {""}}); errs.Error() != "must: is required" {
		t.Errorf("nothing picked in a required list is refused with %q, want \"must: is required\"", errs.Error())
	}
}
