package elicit

import (
	"encoding/json"
	"math"
	"net/url"
	"slices"
	"strconv"
	"strings"
)

// FromForm turns an HTML form submission into content for s, an object
// schema of flat fields, and validates it. Every problem comes back, each
// against its field: values that do not parse as their field's type, names
// that are not fields, and whatever Validate finds in the rest. A field left
// empty is omitted, so a required one reports "is required".
//
// Booleans read true/on/yes/1 and false/off/no/0; a multi-choice list reads
// every value given under its name, empty ones aside.
func (s *Schema) FromForm(form url.Values) (json.RawMessage, FieldErrors) {
	var errs FieldErrors
	if s == nil || s.Type != "object" {
		return nil, FieldErrors{{Message: notForm}}
	}
	content := map[string]any{}
	for _, name := range s.FieldOrder() {
		p := s.Properties[name]
		vs, ok := form[name]
		if !ok {
			continue
		}
		if p.Type == "array" {
			var items []any
			for _, v := range vs {
				if v = strings.TrimSpace(v); v == "" {
					continue
				}
				item, msg := parseField(p.Items, v)
				if msg != "" {
					errs = append(errs, FieldError{Field: name, Message: msg})
					break
				}
				items = append(items, item)
			}
			// Nothing picked leaves the field out (a required one is then
			// reported as required): never null, which no list's schema
			// takes.
			if len(items) > 0 {
				content[name] = items
			}
			continue
		}
		v := vs[len(vs)-1]
		if p.Format != "multiline" {
			v = strings.TrimSpace(v)
		}
		if strings.TrimSpace(v) == "" {
			continue
		}
		val, msg := parseField(p, v)
		if msg != "" {
			errs = append(errs, FieldError{Field: name, Message: msg})
			continue
		}
		content[name] = val
	}
	raw, err := json.Marshal(content)
	if err != nil {
		return nil, FieldErrors{{Message: "the answer could not be encoded"}}
	}
	// Validation covers what parsed, plus unknown names: report those in the
	// submission's own terms.
	for _, e := range s.Validate(raw) {
		if errs.For(e.Field) == "" {
			errs = append(errs, e)
		}
	}
	var extra []string
	for name := range form {
		if _, ok := s.Properties[name]; !ok {
			extra = append(extra, name)
		}
	}
	slices.Sort(extra)
	for _, name := range extra {
		errs = append(errs, FieldError{Field: name, Message: "is not a field of this form"})
	}
	return raw, s.sortErrors(errs)
}

// parseField reads one form value as p's type; the message says why not.
func parseField(p *Schema, v string) (any, string) {
	if p == nil {
		return v, ""
	}
	switch p.Type {
	case "integer":
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return nil, "must be a whole number"
		}
		return n, ""
	case "number":
		f, err := strconv.ParseFloat(v, 64)
		if err != nil || math.IsNaN(f) || math.IsInf(f, 0) { // ParseFloat reads "NaN" and "Inf"; JSON has neither
			return nil, "must be a number"
		}
		return f, ""
	case "boolean":
		switch strings.ToLower(v) {
		case "true", "on", "yes", "1":
			return true, ""
		case "false", "off", "no", "0":
			return false, ""
		}
		return nil, "must be true or false"
	case "string", "":
		return v, ""
	}
	return nil, "cannot be given in a form"
}

// sortErrors puts errors in the order the form shows its fields.
func (s *Schema) sortErrors(errs FieldErrors) FieldErrors {
	if len(errs) == 0 {
		return nil
	}
	rank := map[string]int{}
	for i, name := range s.FieldOrder() {
		rank[name] = i
	}
	slices.SortStableFunc(errs, func(a, b FieldError) int {
		ra, oka := rank[a.Field]
		rb, okb := rank[b.Field]
		switch {
		case oka && okb:
			return ra - rb
		case oka:
			return -1
		case okb:
			return 1
		}
		return 0
	})
	return errs
}

// notForm is what FromForm says of a schema a flat HTML form cannot fill.
const notForm = "elicit: this schema is not a flat form"
