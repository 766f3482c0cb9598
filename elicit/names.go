package elicit

import (
	"bytes"
	"encoding/json"
	"strconv"
	"unicode/utf8"
)

// repeatedName returns the path of the first name an object in raw gives
// twice (first by where its second giving stands in the text), named as
// check names fields. raw is one JSON value that encoding/json has decoded
// already, so it is well formed and the walk need not check it: it reads
// the names and skips the values' bytes, decoding nothing else, so that an
// answer is decoded once, not twice.
func repeatedName(raw []byte) (string, bool) {
	w := &nameWalk{raw: raw}
	w.names, w.at = w.namesRoom[:0], w.atRoom[:0]
	if w.value() {
		return w.path(), true
	}
	return "", false
}

// nameWalk walks a well-formed JSON value for a name given twice.
type nameWalk struct {
	raw []byte
	i   int // the next byte to read
	// at is where the walk is: the names and list positions from the top to
	// the value being read.
	at []step
	// names holds the names of the objects being read, each object's after
	// its enclosing one's; an object with many names moves them to a map
	// rather than compare each new name with every earlier one.
	names [][]byte
	// namesRoom and atRoom hold the names and steps of most answers, in
	// the walk's one allocation.
	namesRoom [manyNames][]byte
	atRoom    [8]step
}

// step is one step of a path: a name in an object or a position in a list.
type step struct {
	name  []byte
	index int // -1 for a name
}

// manyNames is how many names an object may have before its names are
// looked up in a map rather than compared one by one.
const manyNames = 16

// value reads the value at w.i and reports whether a name is given twice
// in it; w.at then leads to the name given twice.
func (w *nameWalk) value() bool {
	w.space()
	switch w.raw[w.i] {
	case '{':
		return w.object()
	case '[':
		return w.list()
	case '"':
		w.str()
	default: // a number, true, false or null, which ends where its value does
		for w.i < len(w.raw) && !endsValue(w.raw[w.i]) {
			w.i++
		}
	}
	return false
}

func (w *nameWalk) object() bool {
	w.i++ // {
	first := len(w.names)
	var seen map[string]bool // the names once there are many of them
	for {
		w.space()
		if w.raw[w.i] == '}' {
			w.i++
			w.names = w.names[:first]
			return false
		}
		if w.raw[w.i] == ',' {
			w.i++
			w.space()
		}
		name := w.name()
		if seen == nil && len(w.names)-first == manyNames {
			seen = make(map[string]bool, 2*manyNames)
			for _, n := range w.names[first:] {
				seen[string(n)] = true
			}
		}
		var twice bool
		if seen != nil {
			twice = seen[string(name)]
			seen[string(name)] = true
		} else {
			for _, n := range w.names[first:] {
				if bytes.Equal(n, name) {
					twice = true
					break
				}
			}
			w.names = append(w.names, name)
		}
		w.at = append(w.at, step{name: name, index: -1})
		if twice {
			return true
		}
		w.space()
		w.i++ // :
		if w.value() {
			return true
		}
		w.at = w.at[:len(w.at)-1]
	}
}

func (w *nameWalk) list() bool {
	w.i++ // [
	for n := 0; ; n++ {
		w.space()
		switch w.raw[w.i] {
		case ']':
			w.i++
			return false
		case ',':
			w.i++
		}
		w.at = append(w.at, step{index: n})
		if w.value() {
			return true
		}
		w.at = w.at[:len(w.at)-1]
		w.space()
	}
}

// name reads the string at w.i, a name, and returns it as encoding/json
// decodes it: its bytes when they are plain text, else the decoded string.
func (w *nameWalk) name() []byte {
	start := w.i
	plain := w.str()
	quoted := w.raw[start:w.i]
	if plain {
		return quoted[1 : len(quoted)-1]
	}
	var s string
	json.Unmarshal(quoted, &s) // well formed: decoded before
	return []byte(s)
}

// str skips the string at w.i and reports whether it is plain text, with no
// escape and no byte that is not UTF-8, which decodes to its own bytes.
func (w *nameWalk) str() (plain bool) {
	plain = true
	start := w.i + 1
	for w.i++; w.raw[w.i] != '"'; w.i++ {
		if w.raw[w.i] == '\\' {
			plain = false
			w.i++ // the escaped byte, which may be a quote
		}
	}
	w.i++
	return plain && utf8.Valid(w.raw[start:w.i-1])
}

func (w *nameWalk) space() {
	for w.i < len(w.raw) && isSpace(w.raw[w.i]) {
		w.i++
	}
}

// isSpace reports whether c is white space to JSON (jsonSpace).
func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }

// endsValue reports whether c ends a number or a literal in well-formed JSON.
func endsValue(c byte) bool { return c == ',' || c == ']' || c == '}' || isSpace(c) }

// path names where the walk stopped as check names fields: "a.b", "a[2]".
func (w *nameWalk) path() string {
	var b []byte
	for _, s := range w.at {
		if s.index >= 0 {
			b = append(b, '[')
			b = strconv.AppendInt(b, int64(s.index), 10)
			b = append(b, ']')
			continue
		}
		if len(b) > 0 {
			b = append(b, '.')
		}
		b = append(b, s.name...)
	}
	return string(b)
}
