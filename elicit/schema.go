package elicit

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode"
)

// Schema is the part of JSON Schema that elicit kinds and tool inputs use:
// objects of named properties, strings, numbers, integers, booleans and
// arrays, with titles, descriptions, enums, defaults and bounds. Order keeps
// the properties in the order the Go struct declares them, so forms show
// fields the way the author wrote them. EnumNames, when set, name Enum's
// values one each for people: a question of an MCP server shows its titled
// options by them, and the answer holds the values.
type Schema struct {
	Type                 string             `json:"type,omitempty"`
	Title                string             `json:"title,omitempty"`
	Description          string             `json:"description,omitempty"`
	Enum                 []string           `json:"enum,omitempty"`
	EnumNames            []string           `json:"enumNames,omitempty"`
	Default              any                `json:"default,omitempty"`
	Minimum              *float64           `json:"minimum,omitempty"`
	Maximum              *float64           `json:"maximum,omitempty"`
	MinLength            *int               `json:"minLength,omitempty"`
	MaxLength            *int               `json:"maxLength,omitempty"`
	MinItems             *int               `json:"minItems,omitempty"`
	MaxItems             *int               `json:"maxItems,omitempty"`
	Format               string             `json:"format,omitempty"`
	Items                *Schema            `json:"items,omitempty"`
	Properties           map[string]*Schema `json:"properties,omitempty"`
	Order                []string           `json:"x-order,omitempty"`
	Required             []string           `json:"required,omitempty"`
	AdditionalProperties *bool              `json:"additionalProperties,omitempty"`
}

// Struct tags read by SchemaOf, beside encoding/json's own:
//
//	title:"Cabin class"             the field's label (default: from its name)
//	desc:"How many people"          a description shown under the field
//	enum:"economy,premium,business" the allowed values
//	default:"2"                     the value a form starts with
//	min:"1" max:"9"                 bounds: of the value for numbers, of the
//	                                length for strings, of the count for lists
//	format:"email"                  a format the answer is checked for (email,
//	                                uri, date, date-time), or a hint to
//	                                renderers (multiline)
//
// A field is required unless its json tag has omitempty, it is a pointer or
// a bool, or it has a default; a field left out of an answer takes its
// default (WithDefaults).

var schemaCache sync.Map // reflect.Type → schemaResult

type schemaResult struct {
	s   *Schema
	err error
}

// SchemaFor derives the schema of T.
func SchemaFor[T any]() (*Schema, error) {
	return SchemaOf(reflect.TypeFor[T]())
}

// MustSchemaFor is SchemaFor for declarations made at start-up: it panics
// if T cannot be described.
func MustSchemaFor[T any]() *Schema {
	s, err := SchemaFor[T]()
	if err != nil {
		panic(err)
	}
	return s
}

// SchemaOf derives the schema of t. The result is shared; do not modify it.
func SchemaOf(t reflect.Type) (*Schema, error) {
	if r, ok := schemaCache.Load(t); ok {
		return r.(schemaResult).s, r.(schemaResult).err
	}
	s, err := schemaOf(t, nil)
	schemaCache.Store(t, schemaResult{s, err})
	return s, err
}

func schemaOf(t reflect.Type, seen []reflect.Type) (*Schema, error) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == reflect.TypeFor[json.RawMessage]() {
		return &Schema{}, nil // any JSON value
	}
	switch t.Kind() {
	case reflect.String:
		return &Schema{Type: "string"}, nil
	case reflect.Bool:
		return &Schema{Type: "boolean"}, nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return &Schema{Type: "integer"}, nil
	case reflect.Float32, reflect.Float64:
		return &Schema{Type: "number"}, nil
	case reflect.Slice, reflect.Array:
		items, err := schemaOf(t.Elem(), seen)
		if err != nil {
			return nil, err
		}
		return &Schema{Type: "array", Items: items}, nil
	case reflect.Map:
		if t.Key().Kind() != reflect.String {
			return nil, fmt.Errorf("elicit: %s: map keys must be strings", t)
		}
		return &Schema{Type: "object"}, nil // free-form: any keys
	case reflect.Interface:
		return &Schema{}, nil
	case reflect.Struct:
		for _, s := range seen {
			if s == t {
				return nil, fmt.Errorf("elicit: %s refers to itself", t)
			}
		}
		return structSchema(t, append(seen, t))
	}
	return nil, fmt.Errorf("elicit: cannot describe %s (%s) as JSON Schema", t, t.Kind())
}

func structSchema(t reflect.Type, seen []reflect.Type) (*Schema, error) {
	no := false
	s := &Schema{Type: "object", Properties: map[string]*Schema{}, AdditionalProperties: &no}
	for f := range fields(t) {
		name, omitempty, ok := jsonName(f)
		if !ok {
			continue
		}
		p, err := schemaOf(f.Type, seen)
		if err != nil {
			return nil, fmt.Errorf("%s.%s: %w", t.Name(), f.Name, err)
		}
		p = clone(p)
		if err := applyTags(p, f); err != nil {
			return nil, fmt.Errorf("elicit: %s.%s: %w", t.Name(), f.Name, err)
		}
		s.Properties[name] = p
		s.Order = append(s.Order, name)
		// A field with a default, or a yes/no (an unticked box sends
		// nothing), may be left out: WithDefaults says what it then is.
		if !omitempty && f.Type.Kind() != reflect.Pointer && f.Type.Kind() != reflect.Bool && p.Default == nil {
			s.Required = append(s.Required, name)
		}
	}
	return s, nil
}

// fields yields t's exported fields, embedded structs' fields promoted.
func fields(t reflect.Type) func(func(reflect.StructField) bool) {
	return func(yield func(reflect.StructField) bool) {
		for i := range t.NumField() {
			f := t.Field(i)
			if f.Anonymous && f.Tag.Get("json") == "" {
				et := f.Type
				if et.Kind() == reflect.Pointer {
					et = et.Elem()
				}
				if et.Kind() == reflect.Struct {
					for ef := range fields(et) {
						if !yield(ef) {
							return
						}
					}
					continue
				}
			}
			if !f.IsExported() {
				continue
			}
			if !yield(f) {
				return
			}
		}
	}
}

func jsonName(f reflect.StructField) (name string, omitempty, ok bool) {
	tag := f.Tag.Get("json")
	if tag == "-" {
		return "", false, false
	}
	name, opts, _ := strings.Cut(tag, ",")
	if name == "" {
		name = f.Name
	}
	for o := range strings.SplitSeq(opts, ",") {
		if o == "omitempty" || o == "omitzero" {
			omitempty = true
		}
	}
	return name, omitempty, true
}

func clone(s *Schema) *Schema {
	c := *s
	return &c
}

func applyTags(p *Schema, f reflect.StructField) error {
	p.Title = f.Tag.Get("title")
	if p.Title == "" {
		p.Title = humanize(f.Name)
	}
	p.Description = f.Tag.Get("desc")
	p.Format = f.Tag.Get("format")
	target := p
	if p.Type == "array" && p.Items != nil {
		target = clone(p.Items)
		p.Items = target
	}
	if e := f.Tag.Get("enum"); e != "" {
		for v := range strings.SplitSeq(e, ",") {
			target.Enum = append(target.Enum, strings.TrimSpace(v))
		}
	}
	for _, tag := range []string{"min", "max"} {
		v := f.Tag.Get(tag)
		if v == "" {
			continue
		}
		n, err := strconv.ParseFloat(v, 64)
		if err != nil {
			return fmt.Errorf("%s:%q is not a number", tag, v)
		}
		switch p.Type {
		case "string":
			setInt(&p.MinLength, &p.MaxLength, tag, int(n))
		case "array":
			setInt(&p.MinItems, &p.MaxItems, tag, int(n))
		case "integer", "number":
			if tag == "min" {
				p.Minimum = &n
			} else {
				p.Maximum = &n
			}
		default:
			return fmt.Errorf("%s applies to strings, numbers and lists, not %s", tag, p.Type)
		}
	}
	if d, ok := f.Tag.Lookup("default"); ok {
		v, err := parseDefault(p, d)
		if err != nil {
			return err
		}
		p.Default = v
	}
	return nil
}

func setInt(lo, hi **int, tag string, n int) {
	if tag == "min" {
		*lo = &n
	} else {
		*hi = &n
	}
}

func parseDefault(p *Schema, d string) (any, error) {
	switch p.Type {
	case "string":
		return d, nil
	case "boolean":
		b, err := strconv.ParseBool(d)
		if err != nil {
			return nil, fmt.Errorf("default:%q is not true or false", d)
		}
		return b, nil
	case "integer":
		n, err := strconv.ParseInt(d, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("default:%q is not a whole number", d)
		}
		return n, nil
	case "number":
		n, err := strconv.ParseFloat(d, 64)
		if err != nil {
			return nil, fmt.Errorf("default:%q is not a number", d)
		}
		return n, nil
	case "array":
		var out []any
		for v := range strings.SplitSeq(d, ",") {
			out = append(out, strings.TrimSpace(v))
		}
		return out, nil
	}
	return nil, fmt.Errorf("default applies to strings, numbers, booleans and lists, not %s", p.Type)
}

// humanize turns a Go field name into a label: "TravelDate" → "Travel date",
// "HotelURL" → "Hotel URL".
func humanize(name string) string {
	rs := []rune(name)
	var b strings.Builder
	for i, r := range rs {
		if i > 0 && unicode.IsUpper(r) {
			prevLower := unicode.IsLower(rs[i-1])
			nextLower := i+1 < len(rs) && unicode.IsLower(rs[i+1])
			if prevLower || (unicode.IsUpper(rs[i-1]) && nextLower) {
				b.WriteByte(' ')
			}
		}
		b.WriteRune(r)
	}
	words := strings.Fields(b.String())
	for i, w := range words {
		if i > 0 && !isAcronym(w) {
			words[i] = strings.ToLower(w)
		}
	}
	return strings.Join(words, " ")
}

func isAcronym(w string) bool {
	if len(w) < 2 {
		return false
	}
	for _, r := range w {
		if !unicode.IsUpper(r) && !unicode.IsDigit(r) {
			return false
		}
	}
	return true
}

// Clone returns a deep copy of s, for a kind to narrow per request without
// touching the shared schema of its type.
func (s *Schema) Clone() *Schema {
	if s == nil {
		return nil
	}
	c := *s
	c.Enum = slices.Clone(s.Enum)
	c.EnumNames = slices.Clone(s.EnumNames)
	c.Order = slices.Clone(s.Order)
	c.Required = slices.Clone(s.Required)
	c.Items = s.Items.Clone()
	if s.Properties != nil {
		c.Properties = make(map[string]*Schema, len(s.Properties))
		for k, p := range s.Properties {
			c.Properties[k] = p.Clone()
		}
	}
	return &c
}

// Label is how option, one of s's Enum, is shown to people: its name in
// EnumNames, else the value itself.
func (s *Schema) Label(option string) string {
	if s != nil && len(s.EnumNames) == len(s.Enum) {
		if i := slices.Index(s.Enum, option); i >= 0 && s.EnumNames[i] != "" {
			return s.EnumNames[i]
		}
	}
	return option
}

// labels are s's options as people read them.
func (s *Schema) labels() string {
	out := make([]string, len(s.Enum))
	for i, v := range s.Enum {
		out[i] = s.Label(v)
	}
	return strings.Join(out, ", ")
}
