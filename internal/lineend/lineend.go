// Package lineend ends every line of a text with "\n" alone. Text from
// users and models may end lines with "\r\n" or a lone "\r"; an event
// stream would read a lone "\r" as the end of a line too, so text is
// normalized where it comes in and again where it goes out on a stream.
package lineend

import (
	"bytes"
	"encoding/json"
	"strings"
)

var replacer = strings.NewReplacer("\r\n", "\n", "\r", "\n")

// Normalize returns s with "\r\n" and each lone "\r" turned into "\n".
func Normalize(s string) string {
	if !strings.Contains(s, "\r") {
		return s
	}
	return replacer.Replace(s)
}

// NormalizeJSON returns the JSON document raw with the line ends of every
// string in it normalized. raw is returned as it is when no string can hold
// a "\r" (the common case, checked without decoding) or when it is not JSON
// (whoever validates it will say so).
func NormalizeJSON(raw []byte) []byte {
	if !bytes.Contains(raw, []byte(`\r`)) && !hasEscapedCR(raw) && !bytes.Contains(raw, []byte("\r")) {
		return raw
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil || dec.More() {
		return raw
	}
	out, err := json.Marshal(normalizeValue(v))
	if err != nil {
		return raw
	}
	return out
}

// hasEscapedCR reports whether raw holds the escape JSON spells a "\r"
// with, `\u000d`, in either case of its letters, without copying raw.
func hasEscapedCR(raw []byte) bool {
	for i := bytes.IndexByte(raw, '\\'); i >= 0 && i+6 <= len(raw); {
		e := raw[i+1 : i+6]
		if (e[0] == 'u' || e[0] == 'U') && string(e[1:4]) == "000" && (e[4] == 'd' || e[4] == 'D') {
			return true
		}
		next := bytes.IndexByte(raw[i+1:], '\\')
		if next < 0 {
			break
		}
		i += 1 + next
	}
	return false
}

func normalizeValue(v any) any {
	switch v := v.(type) {
	case string:
		return Normalize(v)
	case []any:
		for i := range v {
			v[i] = normalizeValue(v[i])
		}
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, x := range v {
			out[Normalize(k)] = normalizeValue(x)
		}
		return out
	}
	return v
}

// Stream normalizes text that arrives in pieces, such as a model's reply
// streamed token by token, where a "\r\n" may be split between two pieces.
// Its zero value is ready to use.
type Stream struct {
	cr bool // the last piece ended with "\r", already written as "\n"
}

// Next returns piece normalized, as part of the text so far.
func (s *Stream) Next(piece string) string {
	if piece == "" {
		return ""
	}
	if s.cr && piece[0] == '\n' {
		piece = piece[1:] // the rest of a "\r\n" already written
	}
	s.cr = strings.HasSuffix(piece, "\r")
	return Normalize(piece)
}
