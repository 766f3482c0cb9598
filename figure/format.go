package figure

import (
	"math"
	"strconv"
	"strings"

	"github.com/sweatpants-go/sweatpants/internal/textfit"
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
	return textfit.Fixed(v, decimals)
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
