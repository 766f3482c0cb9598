package term

import (
	"io"
	"strings"
	"unicode/utf8"
)

// printable writes what it is given with every control character except
// newline and tab shown as a visible escape (\x1b, \u009b), so that text
// an agent, a model or another user wrote cannot move the cursor, clear the
// screen or retitle the window of whoever reads it: the terminal's
// equivalent of escaping HTML.
type printable struct{ w io.Writer }

func (p printable) Write(b []byte) (int, error) {
	if !hasControl(b) {
		return p.w.Write(b)
	}
	n := len(b)
	var sb strings.Builder
	for len(b) > 0 {
		r, size := utf8.DecodeRune(b)
		switch {
		case r == utf8.RuneError && size == 1:
			sb.WriteString(`\x`)
			sb.WriteString(hex2(b[0]))
		case isControl(r):
			if r < 0x80 {
				sb.WriteString(`\x` + hex2(byte(r)))
			} else {
				sb.WriteString(`\u00` + hex2(byte(r)))
			}
		default:
			sb.Write(b[:size])
		}
		b = b[size:]
	}
	if _, err := io.WriteString(p.w, sb.String()); err != nil {
		return 0, err
	}
	return n, nil
}

// hasControl reports whether b holds anything printable would escape.
func hasControl(b []byte) bool {
	for len(b) > 0 {
		r, size := utf8.DecodeRune(b)
		if (r == utf8.RuneError && size == 1) || isControl(r) {
			return true
		}
		b = b[size:]
	}
	return false
}

// isControl reports whether r is a C0 or C1 control character, or DEL,
// other than newline and tab.
func isControl(r rune) bool {
	return (r < 0x20 && r != '\n' && r != '\t') || (r >= 0x7f && r <= 0x9f)
}

func hex2(b byte) string {
	const digits = "0123456789abcdef"
	return string([]byte{digits[b>>4], digits[b&0xf]})
}
