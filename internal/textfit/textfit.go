// Package textfit fits the words of a figure to where they are shown: one
// line of a terminal (OneLine), so many of its columns (Width, Truncate,
// Pad), a number with so many decimals (Fixed), a heading with its unit
// (Titled). The figure's text for terminals and its drawing's layout
// (package chartlayout) both write with it.
package textfit

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/width"
)

// Fixed writes v with at most decimals digits after the point, without
// trailing zeros, and 0 for a value that rounds to minus zero.
func Fixed(v float64, decimals int) string {
	s := strconv.FormatFloat(v, 'f', decimals, 64)
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	if s == "-0" {
		s = "0"
	}
	return s
}

// Titled writes a heading with its unit: "Fare (€)".
func Titled(title, unit string) string {
	switch {
	case unit == "":
		return title
	case title == "":
		return unit
	}
	return title + " (" + unit + ")"
}

// OneLine makes a label fit one line of a terminal: whitespace such as a
// newline or a tab becomes a space, and any other control character is
// written as an escape (\x1b), as the terminal writes them, so that text a
// model wrote can neither break a table's alignment nor drive the
// terminal.
func OneLine(s string) string {
	if !strings.ContainsFunc(s, func(r rune) bool { return unicode.IsControl(r) || r == utf8.RuneError }) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b.WriteString(`\x` + strconv.FormatUint(uint64(s[i])|0x100, 16)[1:])
		case unicode.IsSpace(r) && unicode.IsControl(r):
			b.WriteByte(' ')
		case unicode.IsControl(r) && r < 0x80:
			b.WriteString(`\x` + strconv.FormatUint(uint64(r)|0x100, 16)[1:])
		case unicode.IsControl(r):
			b.WriteString(`\u00` + strconv.FormatUint(uint64(r)|0x100, 16)[1:])
		default:
			b.WriteRune(r)
		}
		i += size
	}
	return b.String()
}

// Width is how many columns of a terminal s takes: two for a wide
// character (most of Chinese, Japanese and Korean), none for a combining
// mark or an invisible format character, one for the rest. A byte-count or
// a rune-count would misalign a table of such labels.
func Width(s string) int {
	n := 0
	for _, r := range s {
		n += runeWidth(r)
	}
	return n
}

func runeWidth(r rune) int {
	switch {
	case unicode.In(r, unicode.Mn, unicode.Me, unicode.Cf):
		return 0
	}
	switch width.LookupRune(r).Kind() {
	case width.EastAsianWide, width.EastAsianFullwidth:
		return 2
	}
	return 1
}

// Truncate shortens s to at most max columns, ending it with "…" when it
// was cut.
func Truncate(s string, max int) string {
	if Width(s) <= max {
		return s
	}
	if max <= 0 {
		return ""
	}
	n := 0
	for i, r := range s {
		w := runeWidth(r)
		if n+w > max-1 {
			return s[:i] + "…"
		}
		n += w
	}
	return s
}

// Pad fills s with spaces to w columns, on the left when right is set.
func Pad(s string, w int, right bool) string {
	gap := w - Width(s)
	if gap <= 0 {
		return s
	}
	if right {
		return strings.Repeat(" ", gap) + s
	}
	return s + strings.Repeat(" ", gap)
}
