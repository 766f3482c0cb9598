package figure_test

import (
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/sweatpants-go/sweatpants/elicit"
	"github.com/sweatpants-go/sweatpants/figure"
)

func fares() figure.Table {
	return figure.Table{Title: "Fares", Columns: []string{"To", "Fare"}, Rows: [][]string{{"Porto", "89"}, {"Madrid", "140"}}}
}

func prices() figure.Chart {
	return figure.Chart{Kind: figure.Bar, Title: "Fares", Labels: []string{"Porto", "Madrid"},
		Series: []figure.Series{{Name: "Fare", Values: []float64{89, 140}}}, Y: figure.Axis{Unit: "€"}}
}

func repeat(s string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = s
	}
	return out
}

// Check refuses what cannot be shown, saying what is wrong where, so that an
// agent's author — or a model, told through a tool's result — can fix it.
func TestCheckSaysWhatIsWrong(t *testing.T) {
	tests := []struct {
		name string
		edit func(f *figure.Figure)
		want string // a part of the error; empty for none
	}{
		{"a table", func(f *figure.Figure) {}, ""},
		{"a table without rows", func(f *figure.Figure) { f.Table.Rows = nil }, ""},
		{"a chart", func(f *figure.Figure) { c := prices(); f.Table, f.Chart = nil, &c }, ""},
		{"a line chart of one unnamed series", func(f *figure.Figure) {
			f.Table, f.Chart = nil, &figure.Chart{Kind: figure.Line, Labels: []string{"Jan"}, Series: []figure.Series{{Values: []float64{-3.5}}}}
		}, ""},
		{"nothing", func(f *figure.Figure) { f.Table = nil }, "holds neither"},
		{"both", func(f *figure.Figure) { c := prices(); f.Chart = &c }, "not both"},
		{"no columns", func(f *figure.Figure) { f.Table.Columns = nil; f.Table.Rows = nil }, "the table has no columns"},
		{"too many columns", func(f *figure.Figure) { f.Table.Columns = repeat("c", 13); f.Table.Rows = nil }, "13 columns; it may have at most 12"},
		{"a ragged row", func(f *figure.Figure) { f.Table.Rows = append(f.Table.Rows, []string{"Paris"}) }, "row 3 has 1 cells, but the table has 2 columns"},
		{"too many rows", func(f *figure.Figure) {
			f.Table.Rows = nil
			for range 201 {
				f.Table.Rows = append(f.Table.Rows, []string{"a", "b"})
			}
		}, "201 rows; it may have at most 200"},
		{"a long cell", func(f *figure.Figure) { f.Table.Rows[1][0] = strings.Repeat("é", 201) }, "the cell in row 2, column 1 is 201 characters long"},
		{"a long title", func(f *figure.Figure) { f.Table.Title = strings.Repeat("x", 201) }, "the table's title is 201 characters long"},
		{"text that is not UTF-8", func(f *figure.Figure) { f.Table.Columns[1] = "\xff" }, "the heading of column 2 is not valid UTF-8"},
		{"a chart of another kind", func(f *figure.Figure) { c := prices(); c.Kind = "pie"; f.Table, f.Chart = nil, &c }, `the chart's kind is "pie"`},
		{"a chart without labels", func(f *figure.Figure) {
			c := prices()
			c.Labels, c.Series[0].Values = nil, nil
			f.Table, f.Chart = nil, &c
		}, "the chart has no labels"},
		{"too many points", func(f *figure.Figure) {
			c := prices()
			c.Labels, c.Series[0].Values = repeat("x", 101), make([]float64, 101)
			f.Table, f.Chart = nil, &c
		}, "101 labels; it may have at most 100"},
		{"no series", func(f *figure.Figure) { c := prices(); c.Series = nil; f.Table, f.Chart = nil, &c }, "the chart has no series"},
		{"too many series", func(f *figure.Figure) {
			c := prices()
			for range 8 {
				c.Series = append(c.Series, figure.Series{Name: "more", Values: []float64{1, 2}})
			}
			f.Table, f.Chart = nil, &c
		}, "9 series; it may have at most 8"},
		{"a series too short", func(f *figure.Figure) { c := prices(); c.Series[0].Values = []float64{89}; f.Table, f.Chart = nil, &c }, `series 1 ("Fare") has 1 values for 2 labels`},
		{"NaN", func(f *figure.Figure) { c := prices(); c.Series[0].Values[1] = math.NaN(); f.Table, f.Chart = nil, &c }, `series 1 ("Fare"), value 2 is NaN; every value must be a finite number`},
		{"infinity", func(f *figure.Figure) {
			c := prices()
			c.Series[0].Values[0] = math.Inf(-1)
			f.Table, f.Chart = nil, &c
		}, "value 1 is -Inf"},
		{"a huge value", func(f *figure.Figure) { c := prices(); c.Series[0].Values[0] = 2e15; f.Table, f.Chart = nil, &c }, "value 1 is 2e+15; values must lie within ±1e+15"},
		{"an unnamed series among several", func(f *figure.Figure) {
			c := prices()
			c.Series = append(c.Series, figure.Series{Values: []float64{1, 2}})
			f.Table, f.Chart = nil, &c
		}, "series 2 has no name"},
		{"two series of one name", func(f *figure.Figure) {
			c := prices()
			c.Series = append(c.Series, figure.Series{Name: "Fare", Values: []float64{1, 2}})
			f.Table, f.Chart = nil, &c
		}, `series 1 and 2 are both named "Fare"`},
		{"a long unit", func(f *figure.Figure) { c := prices(); c.Y.Unit = strings.Repeat("u", 21); f.Table, f.Chart = nil, &c }, "the y axis's unit is 21 characters long; it may be at most 20"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			table := fares()
			f := figure.Figure{Table: &table}
			tc.edit(&f)
			err := f.Check()
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("Check() = %v, want nil", err)
			case tc.want != "" && err == nil:
				t.Fatalf("Check() = nil, want an error saying %q", tc.want)
			case tc.want != "" && !strings.Contains(err.Error(), tc.want):
				t.Fatalf("Check() = %v, want it to say %q", err, tc.want)
			}
			if err != nil {
				if _, ok := errors.AsType[*figure.Error](err); !ok {
					t.Errorf("Check() returned a %T, want a *figure.Error", err)
				}
			}
		})
	}
}

// Every problem is reported at once, so a model fixes them in one go; a
// figure broken everywhere gets a bounded answer.
func TestCheckReportsEveryProblemUpToTen(t *testing.T) {
	table := figure.Table{Columns: []string{"a", "b"}, Rows: [][]string{{"1"}, {"1", "2", "3"}}}
	err := figure.Figure{Table: &table}.Check()
	if err == nil || !strings.Contains(err.Error(), "row 1 has 1 cells") || !strings.Contains(err.Error(), "row 2 has 3 cells") {
		t.Fatalf("Check() = %v, want both ragged rows named", err)
	}

	table.Rows = nil
	for range 30 {
		table.Rows = append(table.Rows, []string{"only one"})
	}
	err = figure.Figure{Table: &table}.Check()
	if err == nil {
		t.Fatal("Check() = nil for 30 ragged rows")
	}
	if got := strings.Count(err.Error(), "cells, but the table has"); got != 10 {
		t.Errorf("the error names %d rows, want 10:\n%v", got, err)
	}
	if !strings.Contains(err.Error(), "and 20 more problems") {
		t.Errorf("the error does not say how many more problems there are:\n%v", err)
	}
}

// A model writes a figure as a tool's input: the schema derived from the
// type tells it the same bounds Check holds it to, and what it writes in
// that shape decodes into a figure.
func TestTheSchemaSaysTheBoundsCheckHolds(t *testing.T) {
	s, err := elicit.SchemaFor[figure.Figure]()
	if err != nil {
		t.Fatal(err)
	}
	table, chart := s.Properties["table"], s.Properties["chart"]
	for _, tc := range []struct {
		what string
		got  *int
		want int
	}{
		{"table columns", table.Properties["columns"].MaxItems, figure.MaxColumns},
		{"table rows", table.Properties["rows"].MaxItems, figure.MaxRows},
		{"table title", table.Properties["title"].MaxLength, figure.MaxTitle},
		{"chart labels", chart.Properties["labels"].MaxItems, figure.MaxPoints},
		{"chart series", chart.Properties["series"].MaxItems, figure.MaxSeries},
		{"series values", chart.Properties["series"].Items.Properties["values"].MaxItems, figure.MaxPoints},
		{"axis unit", chart.Properties["y"].Properties["unit"].MaxLength, figure.MaxUnit},
	} {
		if tc.got == nil || *tc.got != tc.want {
			t.Errorf("the schema's bound on %s is %v, want %d", tc.what, tc.got, tc.want)
		}
	}
	if got := chart.Properties["kind"].Enum; strings.Join(got, ",") != "bar,line" {
		t.Errorf("the schema's chart kinds are %v, want bar and line", got)
	}

	written := `{"chart":{"kind":"line","title":"Highs","labels":["Jan","Feb"],"series":[{"name":"Oslo","values":[-1,0.5]}],"y":{"unit":"°C"}}}`
	if errs := s.Validate(json.RawMessage(written)); len(errs) > 0 {
		t.Fatalf("the schema refuses a good figure: %v", errs)
	}
	var f figure.Figure
	if err := json.Unmarshal([]byte(written), &f); err != nil {
		t.Fatal(err)
	}
	if err := f.Check(); err != nil || f.Chart.Series[0].Values[1] != 0.5 || f.Chart.Y.Unit != "°C" {
		t.Fatalf("decoded %+v (Check: %v)", f.Chart, err)
	}
	if errs := s.Validate(json.RawMessage(`{"chart":{"kind":"pie","labels":["a"],"series":[{"values":[1]}]}}`)); len(errs) == 0 {
		t.Error("the schema takes a pie chart")
	}
}
