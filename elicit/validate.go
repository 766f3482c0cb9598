package elicit

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// FieldError is one problem with one field of a response. Field is empty
// for a problem with the response as a whole.
type FieldError struct {
	Field   string `json:"field"`
	Message string `json:"message"`
}

func (e FieldError) Error() string {
	if e.Field == "" {
		return e.Message
	}
	return e.Field + ": " + e.Message
}

// FieldErrors is every problem found in a response, in field order.
type FieldErrors []FieldError

func (es FieldErrors) Error() string {
	parts := make([]string, len(es))
	for i, e := range es {
		parts[i] = e.Error()
	}
	return strings.Join(parts, "; ")
}

// For returns the first problem with field, or "".
func (es FieldErrors) For(field string) string {
	for _, e := range es {
		if e.Field == field {
			return e.Message
		}
	}
	return ""
}

// jsonSpace is the white space JSON allows around a value. (bytes.TrimSpace
// would take "\f" and "\v" too, which JSON refuses.)
const jsonSpace = " \t\r\n"

// Validate checks raw against s and returns every problem found; none means
// raw is valid. An empty raw counts as an empty object, so a response with
// no content reports each required field rather than one vague error.
func (s *Schema) Validate(raw json.RawMessage) FieldErrors {
	raw = bytes.Trim(raw, jsonSpace)
	if len(raw) == 0 || string(raw) == "null" {
		if s.Type != "object" {
			return FieldErrors{{Message: "an answer is required"}}
		}
		raw = json.RawMessage("{}")
	}
	// Most answers are decoded in one pass that finds a name given twice on
	// the way; encoding/json decodes the rest, and has the last word on
	// what is JSON.
	v, field, twice, plain := decodePlain(raw)
	if !plain {
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.UseNumber()
		if err := dec.Decode(&v); err != nil || len(bytes.Trim(raw[dec.InputOffset():], jsonSpace)) > 0 {
			return FieldErrors{{Message: "the answer is not valid JSON"}}
		}
		field, twice = repeatedName(raw)
	}
	// A decoded map keeps the last of two values given one name, but a Go
	// struct reports the first one's wrong type: an answer that repeats a
	// name could pass here and still fail to decode for the agent.
	if twice {
		return FieldErrors{{Field: field, Message: "is given twice"}}
	}
	var errs FieldErrors
	s.check("", v, &errs)
	return errs
}

func (s *Schema) check(path string, v any, errs *FieldErrors) {
	add := func(format string, args ...any) {
		*errs = append(*errs, FieldError{Field: path, Message: fmt.Sprintf(format, args...)})
	}
	switch s.Type {
	case "":
		return // any value
	case "object":
		obj, ok := v.(map[string]any)
		if !ok {
			add("must be an object")
			return
		}
		s.checkObject(path, obj, errs)
	case "string":
		str, ok := v.(string)
		if !ok {
			add("must be text")
			return
		}
		if len(s.Enum) > 0 && !slices.Contains(s.Enum, str) {
			add("must be one of: %s", s.labels())
			return
		}
		if msg := formatProblem(s.Format, str); msg != "" {
			add("%s", msg)
			return
		}
		n := utf8.RuneCountInString(str)
		if s.MinLength != nil && n < *s.MinLength {
			add("must be at least %s", plural(*s.MinLength, "character"))
		}
		if s.MaxLength != nil && n > *s.MaxLength {
			add("must be at most %s", plural(*s.MaxLength, "character"))
		}
	case "integer", "number":
		num, ok := v.(json.Number)
		if !ok {
			add("must be a number")
			return
		}
		f, err := num.Float64()
		if err != nil || math.IsInf(f, 0) {
			add("must be a number")
			return
		}
		if s.Type == "integer" && f != math.Trunc(f) {
			add("must be a whole number")
			return
		}
		switch {
		case s.Minimum != nil && f < *s.Minimum:
			add("must be at least %s", formatNumber(*s.Minimum))
		case s.Maximum != nil && f > *s.Maximum:
			add("must be at most %s", formatNumber(*s.Maximum))
		case s.Type == "integer":
			if msg := integerProblem(num); msg != "" {
				add("%s", msg)
			}
		}
	case "boolean":
		if _, ok := v.(bool); !ok {
			add("must be true or false")
		}
	case "array":
		list, ok := v.([]any)
		if !ok {
			add("must be a list")
			return
		}
		if s.MinItems != nil && len(list) < *s.MinItems {
			add("must have at least %s", plural(*s.MinItems, "item"))
		}
		if s.MaxItems != nil && len(list) > *s.MaxItems {
			add("must have at most %s", plural(*s.MaxItems, "item"))
		}
		if s.Items == nil {
			return
		}
		for i, it := range list {
			if s.Items.Type == "string" && len(s.Items.Enum) > 0 {
				// A multi-choice list: report against the list itself, which is
				// what a form shows.
				if str, ok := it.(string); !ok || !slices.Contains(s.Items.Enum, str) {
					add("must be chosen from: %s", s.Items.labels())
					return
				}
				continue
			}
			s.Items.check(fmt.Sprintf("%s[%d]", path, i), it, errs)
		}
	default:
		add("has a type this server does not know (%s)", s.Type)
	}
}

func (s *Schema) checkObject(path string, obj map[string]any, errs *FieldErrors) {
	join := func(name string) string {
		if path == "" {
			return name
		}
		return path + "." + name
	}
	for _, name := range s.FieldOrder() {
		p := s.Properties[name]
		v, present := obj[name]
		if !present || v == nil || (v == "" && p.Type == "string") {
			if slices.Contains(s.Required, name) {
				*errs = append(*errs, FieldError{Field: join(name), Message: "is required"})
			}
			continue
		}
		p.check(join(name), v, errs)
	}
	if s.AdditionalProperties != nil && !*s.AdditionalProperties {
		var extra []string
		for name := range obj {
			if _, ok := s.Properties[name]; !ok {
				extra = append(extra, name)
			}
		}
		slices.Sort(extra)
		for _, name := range extra {
			*errs = append(*errs, FieldError{Field: join(name), Message: "is not a field of this form"})
		}
	}
}

// integerProblem says why num, a whole number, cannot be decoded into a Go
// integer, or returns "". encoding/json decodes an integer only from digits
// that fit it: 2.0 and 2e0 are whole numbers to JSON, not to the agent's int.
func integerProblem(num json.Number) string {
	if strings.ContainsAny(num.String(), ".eE") {
		return "must be a whole number written as digits, like 2"
	}
	if _, err := strconv.ParseInt(num.String(), 10, 64); err == nil {
		return ""
	}
	if _, err := strconv.ParseUint(num.String(), 10, 64); err == nil {
		return ""
	}
	return "is out of range"
}

// FieldOrder is the properties in declaration order; schemas written by
// hand may lack Order, and then the names sort.
func (s *Schema) FieldOrder() []string {
	if len(s.Order) == len(s.Properties) {
		return s.Order
	}
	names := make([]string, 0, len(s.Properties))
	for name := range s.Properties {
		names = append(names, name)
	}
	slices.Sort(names)
	return names
}

func plural(n int, unit string) string {
	if n == 1 {
		return "1 " + unit
	}
	return strconv.Itoa(n) + " " + unit + "s"
}

func formatNumber(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }
