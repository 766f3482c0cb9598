package offline

import (
	"bytes"
	"cmp"
	"encoding/json"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/sweatpants-go/sweatpants/llm"
)

// jsonReply writes best-effort JSON for a request that asks for JSON. It
// fills the first JSON object found in the last message, or else in the
// system prompt, reading it as a JSON Schema when it looks like one and as an
// example otherwise; with neither it answers {"reply": "…"}.
func jsonReply(msgs []llm.Message, system, last string) string {
	shape, prose, ok := findJSON(last)
	if !ok {
		shape, _, ok = findJSON(system)
		prose = last
	}
	f := newFiller(msgs, system, prose)
	for _, w := range strings.FieldsFunc(prose, notWordRune) {
		if isNumber(w) {
			n, _ := strconv.ParseFloat(w, 64)
			f.numbers = append(f.numbers, n)
		}
	}
	var v any = map[string]any{"reply": chatReply(system, prose, nil, 0)}
	if ok {
		v = f.fill("", shape)
	}
	return encodeJSON(v)
}

// outputReply writes JSON valid for schema, the output a request asks for,
// reading the values from what the users wrote where the property names
// say what they hold.
func outputReply(msgs []llm.Message, schema []byte) string {
	var s any
	if err := json.Unmarshal(schema, &s); err != nil {
		s = map[string]any{}
	}
	system, last := instructions(msgs)
	var said []string
	for _, m := range msgs {
		if m.Role == llm.User {
			said = append(said, m.Content)
		}
	}
	f := newFiller(msgs, system, last)
	f.read, f.sparse = read(strings.Join(said, "\n"), last, referenceDay(system)), true
	if m, ok := s.(map[string]any); ok {
		return encodeJSON(f.fromSchema("", m))
	}
	return encodeJSON(f.fill("", s))
}

func newFiller(msgs []llm.Message, system, prose string) *filler {
	f := &filler{msgs: msgs, system: system, prose: prose, words: keywords(prose, 8)}
	// Capitalized words are likelier names, which string fields often want.
	slices.SortStableFunc(f.words, func(a, b string) int { return cmp.Compare(lowerFirst(a), lowerFirst(b)) })
	return f
}

// encodeJSON writes v as compact JSON without HTML escapes; maps come out
// with their keys sorted, so the same value always reads the same.
func encodeJSON(v any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return `{"reply":"The offline model could not write JSON."}`
	}
	return strings.TrimSpace(b.String())
}

func lowerFirst(w string) int {
	if r, _ := utf8.DecodeRuneInString(w); unicode.IsUpper(r) {
		return 0
	}
	return 1
}

// wantsJSON reports whether the lower-cased instructions ask for JSON: they
// name it and either show a JSON object or say how to answer.
func wantsJSON(asked string) bool {
	if !hasWord(asked, "json") {
		return false
	}
	if _, _, ok := findJSON(asked); ok {
		return true
	}
	for _, p := range []string{"in json", "as json", "json only", "only json", "valid json", "json object", "with json", "json format"} {
		if strings.Contains(asked, p) {
			return true
		}
	}
	return false
}

// findJSON returns the first JSON object in text and text without it.
func findJSON(text string) (obj map[string]any, rest string, ok bool) {
	for i := strings.IndexByte(text, '{'); i >= 0; {
		dec := json.NewDecoder(strings.NewReader(text[i:]))
		if err := dec.Decode(&obj); err == nil {
			return obj, text[:i] + text[i+int(dec.InputOffset()):], true
		}
		j := strings.IndexByte(text[i+1:], '{')
		if j < 0 {
			break
		}
		i += 1 + j
	}
	return nil, text, false
}

// filler makes up deterministic values for JSON fields from the words and
// numbers of the prose around the requested shape. With a reading it first
// looks there for each schema value (a tool's arguments, a requested
// output) and falls back to made-up values only when the text gives none.
type filler struct {
	msgs           []llm.Message
	system, prose  string
	words          []string
	numbers        []float64
	nextWord, nNum int
	read           *reading
	// sparse leaves out the optional properties the reading gives no value
	// for, as a model leaves out a tool's optional arguments.
	sparse bool
}

// fill returns a value for the field key of the given shape: a schema or an
// example value.
func (f *filler) fill(key string, shape any) any {
	switch s := shape.(type) {
	case map[string]any:
		if isSchema(s) {
			return f.fromSchema(key, s)
		}
		return f.object(s)
	case []any:
		if len(s) == 0 {
			return []any{}
		}
		return []any{f.fill(key, s[0])}
	case string:
		return f.text(key)
	default:
		return s
	}
}

// object fills each field of shapes, in key order so that the words and
// numbers handed out do not depend on map iteration.
func (f *filler) object(shapes map[string]any) map[string]any {
	out := make(map[string]any, len(shapes))
	for _, k := range slices.Sorted(maps.Keys(shapes)) {
		out[k] = f.fill(k, shapes[k])
	}
	return out
}

// fromSchema returns a value valid for the common parts of JSON Schema:
// const, default, enum, anyOf/oneOf, type, properties, items, format and
// minimum/maximum.
func (f *filler) fromSchema(key string, s map[string]any) any {
	if v, ok := s["const"]; ok {
		return v
	}
	if f.read != nil {
		if v, ok := f.read.value(key, s); ok {
			return v
		}
	}
	if v, ok := s["default"]; ok {
		return v
	}
	if f.read != nil && s["format"] == "date" && !f.read.today.IsZero() {
		return f.read.today.Format(time.DateOnly)
	}
	if e, ok := s["enum"].([]any); ok && len(e) > 0 {
		return e[0]
	}
	for _, k := range []string{"anyOf", "oneOf"} {
		if alts, ok := s[k].([]any); ok && len(alts) > 0 {
			return f.fill(key, alts[0])
		}
	}
	switch schemaType(s) {
	case "object":
		props, _ := s["properties"].(map[string]any)
		if f.read != nil {
			return f.properties(s, props)
		}
		return f.object(props)
	case "array":
		items, ok := s["items"].(map[string]any)
		n := 1
		if lo, ok := s["minItems"].(float64); ok && int(lo) > n {
			n = int(lo)
		}
		if hi, ok := s["maxItems"].(float64); ok && int(hi) < n {
			n = int(hi)
		}
		if !ok || n == 0 {
			return []any{}
		}
		out := make([]any, n)
		for i := range out {
			out[i] = f.fill(strings.TrimSuffix(key, "s"), items)
		}
		return out
	case "integer", "number":
		return f.number(s)
	case "boolean":
		return false
	case "null":
		return nil
	}
	switch s["format"] {
	case "date":
		return "2000-01-01"
	case "date-time":
		return "2000-01-01T00:00:00Z"
	case "email":
		return "someone@example.com"
	case "uri", "url":
		return "https://example.com"
	}
	return f.text(key)
}

// number returns the next number of the prose, or 0, kept within the
// schema's minimum and maximum.
func (f *filler) number(s map[string]any) any {
	n := 0.0
	if f.nNum < len(f.numbers) {
		n = f.numbers[f.nNum]
		f.nNum++
	}
	return fitNumber(s, n)
}

// properties fills the properties of the object schema s in their declared
// order (x-order, then the rest sorted), so that the numbers, dates and
// places handed out do not depend on map iteration. A sparse filler leaves
// out the optional ones the text gives no value for.
func (f *filler) properties(s, props map[string]any) map[string]any {
	required := map[string]bool{}
	if r, ok := s["required"].([]any); ok {
		for _, k := range r {
			if k, ok := k.(string); ok {
				required[k] = true
			}
		}
	}
	out := make(map[string]any, len(props))
	order := propertyOrder(s, props)
	// Numbers written next to a property's name go to that property before
	// any other takes the first number of the text.
	f.read.byName = true
	for _, k := range order {
		if p, ok := props[k].(map[string]any); ok && (schemaType(p) == "integer" || schemaType(p) == "number") {
			if v, ok := f.read.value(k, p); ok {
				out[k] = v
			}
		}
	}
	f.read.byName = false
	for _, k := range order {
		p, ok := props[k].(map[string]any)
		if _, done := out[k]; done {
			continue
		}
		switch {
		case !ok:
			out[k] = f.fill(k, props[k])
		case f.sparse && !required[k]:
			if v, ok := f.read.value(k, p); ok {
				out[k] = v
			}
		default:
			out[k] = f.fromSchema(k, p)
		}
	}
	return out
}

// propertyOrder returns the names of props in the order x-order gives,
// followed by the others sorted.
func propertyOrder(s, props map[string]any) []string {
	var order []string
	if xo, ok := s["x-order"].([]any); ok {
		for _, k := range xo {
			if k, ok := k.(string); ok && props[k] != nil && !slices.Contains(order, k) {
				order = append(order, k)
			}
		}
	}
	for _, k := range slices.Sorted(maps.Keys(props)) {
		if !slices.Contains(order, k) {
			order = append(order, k)
		}
	}
	return order
}

// text returns a string for the field key: a summary for summary fields,
// a sentence for prose fields, and otherwise the next key word.
func (f *filler) text(key string) string {
	k := strings.ToLower(key)
	if f.read != nil && placeKind(key) != "" {
		// The text named no such place, and a made-up one would mislead.
		return "unknown"
	}
	if strings.Contains(k, "summar") {
		return summarize(f.msgs)
	}
	for _, p := range []string{"answer", "reply", "response", "message", "text", "content", "description", "plan", "explanation", "reason", "detail", "body", "note", "comment"} {
		if strings.Contains(k, p) {
			return chatReply(f.system, f.prose, nil, 0)
		}
	}
	if len(f.words) == 0 {
		return "offline"
	}
	w := f.words[f.nextWord%len(f.words)]
	f.nextWord++
	return w
}

// isSchema tells a JSON Schema from an example object.
func isSchema(m map[string]any) bool {
	if _, ok := m["properties"].(map[string]any); ok {
		return true
	}
	for _, k := range []string{"enum", "anyOf", "oneOf", "const", "$schema"} {
		if _, ok := m[k]; ok {
			return true
		}
	}
	switch m["type"].(type) {
	case []any:
		return true
	case string:
		return schemaType(m) != ""
	}
	return false
}

// schemaType returns the schema's type, the first that is not "null" when
// it lists several, guessing "object" or "array" from properties or items.
func schemaType(s map[string]any) string {
	switch t := s["type"].(type) {
	case string:
		switch t {
		case "object", "array", "string", "integer", "number", "boolean", "null":
			return t
		}
	case []any:
		for _, x := range t {
			if x, ok := x.(string); ok && x != "null" {
				return x
			}
		}
	}
	if _, ok := s["properties"]; ok {
		return "object"
	}
	if _, ok := s["items"]; ok {
		return "array"
	}
	return ""
}
