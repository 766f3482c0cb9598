package sampling

import (
	"unicode"
	"unicode/utf8"
)

// countWords returns len(strings.Fields(s)) without making the slice:
// TruncateHistory counts every message of every request.
func countWords(s string) int {
	n := 0
	inWord := false
	for i := 0; i < len(s); {
		var space bool
		if c := s[i]; c < utf8.RuneSelf {
			space = c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'
			i++
		} else {
			r, size := utf8.DecodeRuneInString(s[i:])
			space = unicode.IsSpace(r)
			i += size
		}
		if !space && !inWord {
			n++
		}
		inWord = !space
	}
	return n
}
