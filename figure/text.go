package figure

import (
	"fmt"
	"math"
	"strings"

	"github.com/sweatpants-go/sweatpants/internal/textfit"
)

// Text for terminals, and the words that stand for a chart where a
// drawing cannot: its name, a summary, and its values as a table.

// Widths of the text forms, in terminal columns.
const (
	maxCellWidth  = 40 // a table's cell is cut to it, ending in "…"
	maxLabelWidth = 24 // a bar chart's label and series name
	barWidth      = 30 // the longest bar
)

// Text writes f for a terminal, each line ending in "\n": a table as
// columns aligned under its headings (numbers to the right), a bar chart
// as a row of blocks per value, a line chart as the table of its values.
// Every label is on one line and free of control characters.
func Text(f Figure) string {
	switch {
	case f.Table != nil:
		return tableText(*f.Table)
	case f.Chart != nil && f.Chart.Kind == Bar:
		return barText(*f.Chart)
	case f.Chart != nil:
		return tableText(f.Chart.Table())
	}
	return ""
}

// Name is what the chart is called: its title, or its kind when it has none.
func (c Chart) Name() string {
	if c.Title != "" {
		return textfit.OneLine(c.Title)
	}
	if c.Kind == Line {
		return "Line chart"
	}
	return "Bar chart"
}

// Summary says in a sentence or two what the chart shows, for a screen
// reader's description of the drawing: its kind and span, and each
// series' lowest and highest value. The values themselves are in Table.
func (c Chart) Summary() string {
	if len(c.Labels) == 0 {
		return ""
	}
	kind := "A bar chart"
	if c.Kind == Line {
		kind = "A line chart"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s of %d %s", kind, len(c.Labels), plural(len(c.Labels), "value", "values"))
	if len(c.Series) > 1 {
		fmt.Fprintf(&b, " in each of %d series", len(c.Series))
	}
	if len(c.Labels) > 1 {
		fmt.Fprintf(&b, ", from %s to %s", textfit.OneLine(c.Labels[0]), textfit.OneLine(c.Labels[len(c.Labels)-1]))
	}
	b.WriteString(".")
	for _, s := range c.Series {
		lo, hi := -1, -1
		for i, v := range s.Values {
			if i >= len(c.Labels) {
				break
			}
			if lo < 0 || v < s.Values[lo] {
				lo = i
			}
			if hi < 0 || v > s.Values[hi] {
				hi = i
			}
		}
		if lo < 0 {
			continue
		}
		name := textfit.OneLine(s.Name)
		if name == "" {
			name = "Values"
		}
		fmt.Fprintf(&b, " %s: lowest %s (%s), highest %s (%s).", name,
			WithUnit(s.Values[lo], c.Y.Unit), textfit.OneLine(c.Labels[lo]), WithUnit(s.Values[hi], c.Y.Unit), textfit.OneLine(c.Labels[hi]))
	}
	return b.String()
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// Table is the chart's values as a table: a row per label, a column per
// series, the unit in the headings. It is how the page offers a chart's
// values to anyone who cannot see the drawing, and how a terminal prints a
// line chart.
func (c Chart) Table() Table {
	t := Table{Title: c.Title, Columns: []string{textfit.Titled(c.X.Title, c.X.Unit)}}
	for _, s := range c.Series {
		name := s.Name
		if name == "" {
			name = c.Y.Title
		}
		if name == "" {
			name = "Value"
		}
		t.Columns = append(t.Columns, textfit.Titled(name, c.Y.Unit))
	}
	for i, l := range c.Labels {
		row := []string{l}
		for _, s := range c.Series {
			cell := ""
			if i < len(s.Values) {
				cell = FormatValue(s.Values[i])
			}
			row = append(row, cell)
		}
		t.Rows = append(t.Rows, row)
	}
	return t
}

// Numeric reports, per column of t, whether it holds numbers: every cell
// of it that is not empty reads as one. Such columns are aligned right.
func (t Table) Numeric() []bool { return numericColumns(len(t.Columns), t.Rows) }

// tableText writes t as its title, its headings, a rule and its rows, the
// columns two spaces apart.
func tableText(t Table) string {
	numeric := t.Numeric()
	cell := func(s string) string { return textfit.Truncate(textfit.OneLine(s), maxCellWidth) }
	widths := make([]int, len(t.Columns))
	for j, h := range t.Columns {
		widths[j] = textfit.Width(cell(h))
	}
	for _, row := range t.Rows {
		for j := range min(len(row), len(widths)) {
			widths[j] = max(widths[j], textfit.Width(cell(row[j])))
		}
	}
	var b strings.Builder
	if t.Title != "" {
		b.WriteString(textfit.OneLine(t.Title) + "\n")
	}
	line := func(cells []string) {
		parts := make([]string, len(widths))
		for j := range widths {
			s := ""
			if j < len(cells) {
				s = cell(cells[j])
			}
			parts[j] = textfit.Pad(s, widths[j], numeric[j])
		}
		b.WriteString(strings.TrimRight(strings.Join(parts, "  "), " ") + "\n")
	}
	line(t.Columns)
	rule := make([]string, len(widths))
	for j, w := range widths {
		rule[j] = strings.Repeat("-", max(w, 1))
	}
	line(rule)
	for _, row := range t.Rows {
		line(row)
	}
	if len(t.Rows) == 0 {
		b.WriteString("(no rows)\n")
	}
	return b.String()
}

// barText writes a bar chart as a row per value: the label (on the first
// row of its group), the series' name when there are several, a bar of
// blocks as long as the value is large, and the value. Bars grow right
// from a zero column; when some values are negative, theirs grow left of
// it.
func barText(c Chart) string {
	lo, hi := c.Extent()
	span := hi - lo
	neg := 0 // columns left of zero
	if span > 0 {
		neg = int(math.Round(barWidth * -lo / span))
	}
	cells := func(v float64) int {
		if span == 0 {
			return 0
		}
		return int(math.Round(barWidth * math.Abs(v) / span))
	}
	label := func(s string) string { return textfit.Truncate(textfit.OneLine(s), maxLabelWidth) }
	lw, sw, vw := 0, 0, 0
	for i, l := range c.Labels {
		lw = max(lw, textfit.Width(label(l)))
		for _, s := range c.Series {
			if i < len(s.Values) {
				vw = max(vw, textfit.Width(WithUnit(s.Values[i], c.Y.Unit)))
			}
		}
	}
	named := len(c.Series) > 1
	for _, s := range c.Series {
		sw = max(sw, textfit.Width(label(s.Name)))
	}
	var b strings.Builder
	if c.Title != "" {
		b.WriteString(textfit.OneLine(c.Title) + "\n")
	}
	if c.Y.Title != "" || c.X.Title != "" {
		b.WriteString(axesLine(c) + "\n")
	}
	for i, l := range c.Labels {
		for k, s := range c.Series {
			if i >= len(s.Values) {
				continue
			}
			v := s.Values[i]
			name := ""
			if k == 0 {
				name = label(l)
			}
			row := textfit.Pad(name, lw, false) + "  "
			if named {
				row += textfit.Pad(label(s.Name), sw, false) + "  "
			}
			n := cells(v)
			var bar string
			if v < 0 {
				bar = strings.Repeat(" ", max(neg-n, 0)) + strings.Repeat("█", n) + strings.Repeat(" ", barWidth-neg)
			} else {
				bar = strings.Repeat(" ", neg) + strings.Repeat("█", n) + strings.Repeat(" ", max(barWidth-neg-n, 0))
			}
			row += bar + "  " + textfit.Pad(WithUnit(v, c.Y.Unit), vw, true)
			b.WriteString(strings.TrimRight(row, " ") + "\n")
		}
	}
	return b.String()
}

// axesLine says what the axes are: "Fare (€) by destination".
func axesLine(c Chart) string {
	y, x := textfit.OneLine(textfit.Titled(c.Y.Title, c.Y.Unit)), textfit.OneLine(textfit.Titled(c.X.Title, c.X.Unit))
	switch {
	case y == "":
		return "by " + x
	case x == "":
		return y
	}
	return y + " by " + x
}

// Extent returns the smallest and largest value of c; for bars, the range
// includes 0, which bars grow from.
func (c Chart) Extent() (lo, hi float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, s := range c.Series {
		for _, v := range s.Values {
			lo, hi = min(lo, v), max(hi, v)
		}
	}
	if math.IsInf(lo, 1) { // no values at all
		lo, hi = 0, 0
	}
	if c.Kind == Bar {
		lo, hi = min(lo, 0), max(hi, 0)
	}
	return lo, hi
}
