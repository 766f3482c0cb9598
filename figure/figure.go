// Package figure is what an agent shows when words are not the best answer:
// a table, or a bar or line chart. A Figure is plain data — it is recorded
// in the conversation's tree as it is, and a model can write one as a
// tool's input — so it is checked before it is shown (Check), and every
// way of showing it (the page's HTML and SVG, the terminal's text) takes
// each of its words as hostile text.
//
// The package holds the types, their bounds and checks, the geometry of a
// chart (scales, ticks, where each bar and point goes) and the text a
// terminal prints. Markup is not made here: the page draws a chart from its
// Plot through a templ component, which escapes every label.
package figure

import (
	"errors"
	"fmt"
	"math"
	"unicode/utf8"
)

// Figure is one table or one chart: exactly one of Table and Chart is set.
// It is a struct of two pointers, not an interface, so that it encodes as
// JSON the way a model writes it ({"table": …} or {"chart": …}) and its
// JSON Schema comes from the type like any tool input's.
type Figure struct {
	Table *Table `json:"table,omitempty" desc:"A table of rows and columns. Set either table or chart, not both."`
	Chart *Chart `json:"chart,omitempty" desc:"A bar or line chart of numbers. Set either table or chart, not both."`
}

// Table is a title, the columns' headings and rows of cells, one cell per
// column. Cells are text: a column whose every cell reads as a number is
// aligned to the right when shown.
type Table struct {
	Title   string     `json:"title,omitempty" desc:"What the table shows" max:"200"`
	Columns []string   `json:"columns" desc:"The columns' headings" min:"1" max:"12"`
	Rows    [][]string `json:"rows" desc:"The rows, each a list with one cell of text per column" max:"200"`
}

// ChartKind is how a chart draws its series.
type ChartKind string

const (
	// Bar draws each value as a bar, the series of one label side by side.
	Bar ChartKind = "bar"
	// Line draws each series as a line through its values.
	Line ChartKind = "line"
)

// Chart is one or more named series of numbers over the same labels (the
// categories or points along the x axis), drawn as bars or lines.
type Chart struct {
	Kind   ChartKind `json:"kind" desc:"bar to compare values, line to show how values change" enum:"bar,line"`
	Title  string    `json:"title,omitempty" desc:"What the chart shows" max:"200"`
	Labels []string  `json:"labels" desc:"The categories or points along the x axis, in order" min:"1" max:"100"`
	Series []Series  `json:"series" desc:"One or more series of values, one value per label" min:"1" max:"8"`
	X      Axis      `json:"x,omitzero" desc:"The x axis: what the labels are"`
	Y      Axis      `json:"y,omitzero" desc:"The y axis: what the values are, and their unit"`
}

// Series is a named list of values, one per label of its chart. The name
// may be empty when the chart has one series.
type Series struct {
	Name   string    `json:"name,omitempty" desc:"What the series is; needed when there are several" max:"200"`
	Values []float64 `json:"values" desc:"One number per label" max:"100"`
}

// Axis is an axis's title and the unit of its values ("€", "°C", "km").
type Axis struct {
	Title string `json:"title,omitempty" max:"200"`
	Unit  string `json:"unit,omitempty" max:"20"`
}

// The bounds Check holds a figure to. They keep what a model writes to a
// size a chat can show and a person can read — a chart of 100 points is
// already dense at the page's width — and keep the drawing's arithmetic
// far from float64's limits. The struct tags above say the same to a
// model, in the tool input's schema.
const (
	MaxTitle   = 200  // characters of a title, a heading, a label or a series' name
	MaxCell    = 200  // characters of a table's cell
	MaxUnit    = 20   // characters of a unit
	MaxColumns = 12   // columns of a table
	MaxRows    = 200  // rows of a table
	MaxPoints  = 100  // labels of a chart, and so values of each series
	MaxSeries  = 8    // series of a chart (as many as the palette has colours)
	MaxValue   = 1e15 // the largest magnitude of a value; integers up to it are exact in float64
)

// maxProblems is how many problems Check reports at most: enough for a
// model to fix a figure in one go, not a wall of text for a broken one.
const maxProblems = 10

// Check reports what is wrong with f, every problem at once (up to ten),
// worded for whoever wrote it — an agent's author or a model — or nil
// when f can be shown.
func (f Figure) Check() error {
	var p problems
	switch {
	case f.Table == nil && f.Chart == nil:
		p.add("a figure holds a table or a chart, and this one holds neither")
	case f.Table != nil && f.Chart != nil:
		p.add("a figure holds a table or a chart, not both")
	case f.Table != nil:
		f.Table.check(&p)
	default:
		f.Chart.check(&p)
	}
	return p.err()
}

func (t *Table) check(p *problems) {
	p.text("the table's title", t.Title, MaxTitle)
	switch n := len(t.Columns); {
	case n == 0:
		p.add("the table has no columns; it needs at least one heading")
	case n > MaxColumns:
		p.add("the table has %d columns; it may have at most %d", n, MaxColumns)
	}
	for i, c := range t.Columns {
		p.text(fmt.Sprintf("the heading of column %d", i+1), c, MaxTitle)
	}
	if n := len(t.Rows); n > MaxRows {
		p.add("the table has %d rows; it may have at most %d", n, MaxRows)
		return
	}
	for i, row := range t.Rows {
		if len(t.Columns) > 0 && len(row) != len(t.Columns) {
			p.add("row %d has %d cells, but the table has %d columns: give each row one cell per column", i+1, len(row), len(t.Columns))
			continue
		}
		for j, cell := range row {
			p.text(fmt.Sprintf("the cell in row %d, column %d", i+1, j+1), cell, MaxCell)
		}
	}
}

func (c *Chart) check(p *problems) {
	if c.Kind != Bar && c.Kind != Line {
		p.add("the chart's kind is %q; it must be %q or %q", c.Kind, Bar, Line)
	}
	p.text("the chart's title", c.Title, MaxTitle)
	p.text("the x axis's title", c.X.Title, MaxTitle)
	p.text("the y axis's title", c.Y.Title, MaxTitle)
	p.text("the x axis's unit", c.X.Unit, MaxUnit)
	p.text("the y axis's unit", c.Y.Unit, MaxUnit)
	switch n := len(c.Labels); {
	case n == 0:
		p.add("the chart has no labels; it needs one for each point along its x axis")
	case n > MaxPoints:
		p.add("the chart has %d labels; it may have at most %d", n, MaxPoints)
	}
	for i, l := range c.Labels {
		p.text(fmt.Sprintf("label %d", i+1), l, MaxTitle)
	}
	switch n := len(c.Series); {
	case n == 0:
		p.add("the chart has no series; it needs at least one series of values")
	case n > MaxSeries:
		p.add("the chart has %d series; it may have at most %d", n, MaxSeries)
		return
	}
	names := map[string]int{}
	for i, s := range c.Series {
		what := fmt.Sprintf("series %d", i+1)
		if s.Name != "" {
			what = fmt.Sprintf("series %d (%q)", i+1, s.Name)
		}
		p.text("the name of "+what, s.Name, MaxTitle)
		switch {
		case s.Name == "" && len(c.Series) > 1:
			p.add("%s has no name; when a chart has several series, each needs one for the legend", what)
		case s.Name != "":
			if j, dup := names[s.Name]; dup {
				p.add("series %d and %d are both named %q; the legend could not tell them apart", j+1, i+1, s.Name)
			}
			names[s.Name] = i
		}
		if len(s.Values) != len(c.Labels) && len(c.Labels) <= MaxPoints {
			p.add("%s has %d values for %d labels: give it one value per label", what, len(s.Values), len(c.Labels))
			continue
		}
		for j, v := range s.Values {
			switch {
			case math.IsNaN(v) || math.IsInf(v, 0):
				p.add("%s, value %d is %v; every value must be a finite number", what, j+1, v)
			case math.Abs(v) > MaxValue:
				p.add("%s, value %d is %g; values must lie within ±%g", what, j+1, v, MaxValue)
			}
		}
	}
}

// problems gathers what Check finds.
type problems struct {
	list []string
	more int
}

func (p *problems) add(format string, args ...any) {
	if len(p.list) == maxProblems {
		p.more++
		return
	}
	p.list = append(p.list, fmt.Sprintf(format, args...))
}

// text checks a piece of text: valid UTF-8, and at most max characters.
func (p *problems) text(what, s string, max int) {
	switch {
	case !utf8.ValidString(s):
		p.add("%s is not valid UTF-8 text", what)
	case utf8.RuneCountInString(s) > max:
		p.add("%s is %d characters long; it may be at most %d", what, utf8.RuneCountInString(s), max)
	}
}

// err joins the problems into one error, a line each.
func (p *problems) err() error {
	if len(p.list) == 0 {
		return nil
	}
	errs := make([]error, 0, len(p.list)+1)
	for _, s := range p.list {
		errs = append(errs, errors.New(s))
	}
	if p.more > 0 {
		errs = append(errs, fmt.Errorf("and %d more problems", p.more))
	}
	return &Error{err: errors.Join(errs...)}
}

// Error is what Check returns: every problem found, a line each.
type Error struct{ err error }

func (e *Error) Error() string { return "the figure cannot be shown: " + e.err.Error() }

// Unwrap gives the problems, one error each.
func (e *Error) Unwrap() error { return e.err }
