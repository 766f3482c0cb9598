package elicit

import (
	"bytes"
	"encoding/json"
)

// WithDefaults returns content, an object that answers s, with each field
// s gives a default (the default tag) and content leaves out — absent,
// null, or an empty string where a string goes — set to its default: what
// a field left out of an answer means, as a form shows it filled in.
// Content that is not an object of s's, or that leaves out nothing with a
// default, is returned as it is.
func (s *Schema) WithDefaults(content json.RawMessage) json.RawMessage {
	if s == nil || s.Type != "object" || !s.hasDefaults() {
		return content
	}
	var obj map[string]json.RawMessage
	if len(bytes.Trim(content, jsonSpace)) > 0 && json.Unmarshal(content, &obj) != nil {
		return content
	}
	changed := false
	for name, p := range s.Properties {
		if p.Default == nil || !leftOut(p, obj[name]) {
			continue
		}
		v, err := json.Marshal(p.Default)
		if err != nil {
			continue
		}
		if obj == nil {
			obj = map[string]json.RawMessage{}
		}
		obj[name], changed = v, true
	}
	if !changed {
		return content
	}
	out, err := json.Marshal(obj)
	if err != nil {
		return content
	}
	return out
}

// hasDefaults reports whether a field of s has a default.
func (s *Schema) hasDefaults() bool {
	for _, p := range s.Properties {
		if p.Default != nil {
			return true
		}
	}
	return false
}

// leftOut reports whether v, the value of a field of schema p, leaves the
// field out, as Validate counts a required field missing.
func leftOut(p *Schema, v json.RawMessage) bool {
	v = bytes.Trim(v, jsonSpace)
	return len(v) == 0 || string(v) == "null" || p.Type == "string" && string(v) == `""`
}
