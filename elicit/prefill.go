package elicit

import (
	"encoding/json"
	"net/url"
	"slices"
)

// A form shown again is filled with what the user last submitted, else
// the answer they gave, else the schema's default: the inverse of
// FromForm, for the page.

// Fields returns the accepted content of r decoded as a map of its fields;
// nil for no response or one that accepts nothing.
func (r *Response) Fields() map[string]any {
	if r == nil || r.Action != Accept {
		return nil
	}
	var m map[string]any
	json.Unmarshal(r.Content, &m)
	return m
}

// FormValue returns the text to prefill field name of s with: the value
// submitted, else the answer's (when nothing was submitted), else the
// field's default.
func (s *Schema) FormValue(name string, submitted url.Values, answer map[string]any) string {
	if vs, ok := submitted[name]; ok && len(vs) > 0 {
		return vs[0]
	}
	if v, ok := answer[name]; ok && submitted == nil {
		if s, ok := v.(string); ok {
			return s
		}
		b, _ := json.Marshal(v)
		return string(b)
	}
	if p := s.field(name); p != nil && p.Default != nil {
		b, _ := json.Marshal(p.Default)
		var s string
		if json.Unmarshal(b, &s) == nil {
			return s
		}
		return string(b)
	}
	return ""
}

// FormSelected reports whether option of multi-choice field name of s is
// to be shown picked: submitted, else answered, else the default.
func (s *Schema) FormSelected(name, option string, submitted url.Values, answer map[string]any) bool {
	if vs, ok := submitted[name]; ok {
		return slices.Contains(vs, option)
	}
	if list, ok := answer[name].([]any); ok && submitted == nil {
		return slices.Contains(list, any(option))
	}
	p := s.field(name)
	if p == nil {
		return false
	}
	switch d := p.Default.(type) {
	case string:
		return d == option
	case []any:
		return slices.Contains(d, any(option))
	case []string:
		return slices.Contains(d, option)
	}
	return false
}

// field returns the schema of field name of s, or nil.
func (s *Schema) field(name string) *Schema {
	if s == nil {
		return nil
	}
	return s.Properties[name]
}
