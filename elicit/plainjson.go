package elicit

import (
	"encoding/json"
	"unicode/utf8"
)

// maxPlainDepth is how deeply decodePlain nests objects and lists before
// it leaves the answer to encoding/json; a form's answer nests two deep.
const maxPlainDepth = 64

// decodePlain decodes raw, one JSON value with white space around it, into
// what a json.Decoder with UseNumber decodes it into, and finds the first
// name an object in it gives twice, as repeatedName does, in one pass over
// the bytes: the schema check of an answer as a form or a program sends
// one. It reports false, having decided nothing, for what it leaves to
// encoding/json, whose word on it stands: a string with an escape, a
// control character or bytes that are not UTF-8, a number not written as
// JSON writes one, nesting deeper than maxPlainDepth, anything after the
// value, and whatever is not JSON. It is written here, not taken from a
// library, because encoding/json keeps the last of a name given twice and
// says nothing of it: finding one took a second pass over every answer.
func decodePlain(raw []byte) (v any, field string, twice bool, ok bool) {
	d := &plainDecoder{raw: raw}
	d.at = d.atRoom[:0]
	d.space()
	v, ok = d.value()
	if !ok {
		return nil, "", false, false
	}
	d.space()
	if d.i != len(d.raw) {
		return nil, "", false, false
	}
	return v, d.field, d.twice, true
}

// plainDecoder is decodePlain's pass over an answer.
type plainDecoder struct {
	raw   []byte
	i     int    // the next byte to read
	depth int    // objects and lists open
	at    []step // where the decoder is, as nameWalk.at
	// field is the path of the first name given twice, once twice is set.
	field  string
	twice  bool
	atRoom [8]step
}

func (d *plainDecoder) value() (any, bool) {
	if d.i >= len(d.raw) {
		return nil, false
	}
	switch c := d.raw[d.i]; {
	case c == '{':
		return d.object()
	case c == '[':
		return d.list()
	case c == '"':
		s, ok := d.str()
		return string(s), ok
	case c == '-' || '0' <= c && c <= '9':
		return d.number()
	case d.literal("true"):
		return true, true
	case d.literal("false"):
		return false, true
	case d.literal("null"):
		return nil, true
	}
	return nil, false
}

func (d *plainDecoder) object() (any, bool) {
	if d.depth++; d.depth > maxPlainDepth {
		return nil, false
	}
	d.i++ // {
	obj := map[string]any{}
	d.space()
	if d.next('}') {
		d.depth--
		return obj, true
	}
	for {
		if d.i >= len(d.raw) || d.raw[d.i] != '"' {
			return nil, false
		}
		name, ok := d.str()
		if !ok {
			return nil, false
		}
		key := string(name)
		d.at = append(d.at, step{name: name, index: -1})
		if _, given := obj[key]; given && !d.twice {
			d.field, d.twice = (&nameWalk{at: d.at}).path(), true
		}
		d.space()
		if !d.next(':') {
			return nil, false
		}
		d.space()
		v, ok := d.value()
		if !ok {
			return nil, false
		}
		obj[key] = v
		d.at = d.at[:len(d.at)-1]
		d.space()
		if d.next('}') {
			d.depth--
			return obj, true
		}
		if !d.next(',') {
			return nil, false
		}
		d.space()
	}
}

func (d *plainDecoder) list() (any, bool) {
	if d.depth++; d.depth > maxPlainDepth {
		return nil, false
	}
	d.i++ // [
	list := []any{}
	d.space()
	if d.next(']') {
		d.depth--
		return list, true
	}
	for n := 0; ; n++ {
		d.at = append(d.at, step{index: n})
		v, ok := d.value()
		if !ok {
			return nil, false
		}
		list = append(list, v)
		d.at = d.at[:len(d.at)-1]
		d.space()
		if d.next(']') {
			d.depth--
			return list, true
		}
		if !d.next(',') {
			return nil, false
		}
		d.space()
	}
}

// str reads the string at d.i and returns its bytes, which are its value:
// it reports false for a string that has an escape, a control character
// or bytes that are not UTF-8, or no end.
func (d *plainDecoder) str() ([]byte, bool) {
	start := d.i + 1
	ascii := true
	for d.i = start; d.i < len(d.raw); d.i++ {
		switch c := d.raw[d.i]; {
		case c == '"':
			s := d.raw[start:d.i]
			d.i++
			return s, ascii || utf8.Valid(s)
		case c == '\\' || c < 0x20:
			return nil, false
		case c >= utf8.RuneSelf:
			ascii = false
		}
	}
	return nil, false
}

// number reads the number at d.i as JSON writes one, -?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?,
// and returns it as UseNumber decodes it.
func (d *plainDecoder) number() (any, bool) {
	start := d.i
	d.next('-')
	switch {
	case d.next('0'):
	case d.digits() == 0:
		return nil, false
	}
	if d.next('.') && d.digits() == 0 {
		return nil, false
	}
	if d.next('e') || d.next('E') {
		if !d.next('+') {
			d.next('-')
		}
		if d.digits() == 0 {
			return nil, false
		}
	}
	return json.Number(d.raw[start:d.i]), true
}

// digits skips the digits at d.i and returns how many there were.
func (d *plainDecoder) digits() int {
	start := d.i
	for d.i < len(d.raw) && '0' <= d.raw[d.i] && d.raw[d.i] <= '9' {
		d.i++
	}
	return d.i - start
}

// literal reads word at d.i, if it is there.
func (d *plainDecoder) literal(word string) bool {
	if len(d.raw)-d.i < len(word) || string(d.raw[d.i:d.i+len(word)]) != word {
		return false
	}
	d.i += len(word)
	return true
}

// next reads c at d.i, if it is there.
func (d *plainDecoder) next(c byte) bool {
	if d.i < len(d.raw) && d.raw[d.i] == c {
		d.i++
		return true
	}
	return false
}

func (d *plainDecoder) space() {
	for d.i < len(d.raw) && isSpace(d.raw[d.i]) {
		d.i++
	}
}
