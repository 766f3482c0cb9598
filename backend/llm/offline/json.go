package offline

import (
	"bytes"
	"cmp"
	"encoding/json"
	"maps"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/sweatpants-go/sweatpants/backend/llm"
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
	f := &filler{msgs: msgs, system: system, prose: prose, words: keywords(prose, 8)}
	// Capitalized words are likelier names, which string fields often want.
	slices.SortStableFunc(f.words, func(a, b string) int { return cmp.Compare(lowerFirst(a), lowerFirst(b)) })
	for _, w := range strings.FieldsFunc(prose, notWordRune) {
		if isNumber(w) {
			n, _ := strconv.ParseFloat(w, 64)
			f.numbers = append(f.numbers, n)
		}
	}
	var v any = map[string]any{"reply": chatReply(system, prose)}
	if ok {
		v = f.fill("", shape)
	}
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
// numbers of the prose around the requested shape.
type filler struct {
	msgs           []llm.Message
	system, prose  string
	words          []string
	numbers        []float64
	nextWord, nNum int
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
	if v, ok := s["default"]; ok {
		return v
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
		return f.object(props)
	case "array":
		if items, ok := s["items"].(map[string]any); ok {
			return []any{f.fill(strings.TrimSuffix(key, "s"), items)}
		}
		return []any{}
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
	if lo, ok := s["minimum"].(float64); ok && n < lo {
		n = lo
	}
	if hi, ok := s["maximum"].(float64); ok && n > hi {
		n = hi
	}
	if schemaType(s) == "integer" {
		return int64(n)
	}
	return n
}

// text returns a string for the field key: a summary for summary fields,
// a sentence for prose fields, and otherwise the next key word.
func (f *filler) text(key string) string {
	k := strings.ToLower(key)
	if strings.Contains(k, "summar") {
		return summarize(f.msgs)
	}
	for _, p := range []string{"answer", "reply", "response", "message", "text", "content", "description", "plan", "explanation", "reason", "detail", "body", "note", "comment"} {
		if strings.Contains(k, p) {
			return chatReply(f.system, f.prose)
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
