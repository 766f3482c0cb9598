package figure

import (
	"math"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/width"
)

// FormatValue writes a value the way a person reads it: whole numbers
// without a decimal point, others to six significant digits without
// trailing zeros, never as "-0", and in exponent form only when smaller
// than a billionth.
func FormatValue(v float64) string {
	switch {
	case v == 0:
		return "0" // and not "-0"
	case math.IsNaN(v) || math.IsInf(v, 0): // refused by Check; written all the same
		return strconv.FormatFloat(v, 'f', -1, 64)
	}
	if v == math.Trunc(v) && math.Abs(v) < 1e15 {
		return strconv.FormatFloat(v, 'f', 0, 64)
	}
	if math.Abs(v) < 1e-9 {
		return strconv.FormatFloat(v, 'g', 6, 64) // 1e-300, not "0"
	}
	digits := int(math.Floor(math.Log10(math.Abs(v)))) + 1 // before the point
	decimals := min(max(6-digits, 0), 12)
	return fixed(v, decimals)
}

// fixed writes v with at most decimals digits after the point, without
// trailing zeros, and 0 for a value that rounds to minus zero.
func fixed(v float64, decimals int) string {
	s := strconv.FormatFloat(v, 'f', decimals, 64)
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	if s == "-0" {
		s = "0"
	}
	return s
}

// WithUnit writes a value followed by its unit, if it has one: "89 €",
// "21.5 °C", "40%".
func WithUnit(v float64, unit string) string {
	switch unit {
	case "":
		return FormatValue(v)
	case "%":
		return FormatValue(v) + "%"
	}
	return FormatValue(v) + " " + unit
}

// titled writes a heading with its unit: "Fare (€)".
func titled(title, unit string) string {
	switch {
	case unit == "":
		return title
	case title == "":
		return unit
	}
	return title + " (" + unit + ")"
}

// isNumeric reports whether s reads as a number, for aligning a column of
// numbers to the right. A leading currency sign or a trailing unit would
// make it text; "1,200" too, since separators differ between languages.
func isNumeric(s string) bool {
	_, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	return err == nil
}

// numericColumns reports, per column, whether every non-empty cell of it
// is a number (and at least one is).
func numericColumns(columns int, rows [][]string) []bool {
	out := make([]bool, columns)
	for j := range out {
		seen := false
		out[j] = true
		for _, row := range rows {
			if j >= len(row) || strings.TrimSpace(row[j]) == "" {
				continue
			}
			seen = true
			if !isNumeric(row[j]) {
				out[j] = false
				break
			}
		}
		out[j] = out[j] && seen
	}
	return out
}

// oneLine makes a label fit one line of a terminal: whitespace such as a
// newline or a tab becomes a space, and any other control character is
// written as an escape (\x1b), as the terminal writes them, so that text a
// model wrote can neither break a table's alignment nor drive the
// terminal.
func oneLine(s string) string {
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

// TextWidth is how many columns of a terminal s takes: two for a wide
// character (most of Chinese, Japanese and Korean), none for a combining
// mark or an invisible format character, one for the rest. A byte-count or
// a rune-count would misalign a table of such labels.
func TextWidth(s string) int {
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

// truncate shortens s to at most max columns, ending it with "…" when it
// was cut.
func truncate(s string, max int) string {
	if TextWidth(s) <= max {
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

// pad fills s with spaces to w columns, on the left when right is set.
func pad(s string, w int, right bool) string {
	gap := w - TextWidth(s)
	if gap <= 0 {
		return s
	}
	if right {
		return strings.Repeat(" ", gap) + s
	}
	return s + strings.Repeat(" ", gap)
}
