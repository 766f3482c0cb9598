package figure_test

import (
	"strings"
	"testing"

	"github.com/sweatpants-go/sweatpants/figure"
)

// lines joins the lines of an expected text, each ending in "\n".
func lines(ls ...string) string { return strings.Join(ls, "\n") + "\n" }

func TestATableIsAlignedText(t *testing.T) {
	tests := []struct {
		name  string
		table figure.Table
		want  string
	}{
		{
			"numbers to the right, text to the left",
			figure.Table{Title: "Fares from Lisbon", Columns: []string{"To", "Fare (€)", "Airline"},
				Rows: [][]string{{"Porto", "89", "TAP"}, {"Madrid", "140.5", "Iberia"}, {"Paris", "-1", ""}}},
			lines(
				"Fares from Lisbon",
				"To      Fare (€)  Airline",
				"------  --------  -------",
				"Porto         89  TAP",
				"Madrid     140.5  Iberia",
				"Paris         -1",
			),
		},
		{
			"wide characters take two columns",
			figure.Table{Columns: []string{"City", "Code"}, Rows: [][]string{{"東京", "HND"}, {"Zürich", "ZRH"}}},
			lines(
				"City    Code",
				"------  ----",
				"東京    HND",
				"Zürich  ZRH",
			),
		},
		{
			"control characters neither break a line nor reach the terminal",
			figure.Table{Title: "a\nb", Columns: []string{"x\ty", "z"}, Rows: [][]string{{"\x1b[2J", "1"}}},
			lines(
				"a b",
				"x y      z",
				"-------  -",
				`\x1b[2J  1`,
			),
		},
		{
			"a long cell is cut",
			figure.Table{Columns: []string{"Note"}, Rows: [][]string{{strings.Repeat("abcd ", 10)}}},
			lines(
				"Note",
				"----------------------------------------",
				"abcd abcd abcd abcd abcd abcd abcd abcd…",
			),
		},
		{
			"no rows",
			figure.Table{Columns: []string{"To", "Fare"}},
			lines(
				"To  Fare",
				"--  ----",
				"(no rows)",
			),
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := figure.Text(figure.Figure{Table: &tc.table}); got != tc.want {
				t.Errorf("got:\n%s\nwant:\n%s", got, tc.want)
			}
		})
	}
}

func TestABarChartIsRowsOfBlocks(t *testing.T) {
	tests := []struct {
		name  string
		chart figure.Chart
		want  string
	}{
		{
			"one series",
			figure.Chart{Kind: figure.Bar, Title: "Fares", Labels: []string{"Porto", "Madrid", "Paris"},
				Series: []figure.Series{{Values: []float64{45, 150, 0}}}, Y: figure.Axis{Title: "Fare", Unit: "€"}, X: figure.Axis{Title: "To"}},
			lines(
				"Fares",
				"Fare (€) by To",
				"Porto   █████████                        45 €",
				"Madrid  ██████████████████████████████  150 €",
				"Paris                                     0 €",
			),
		},
		{
			"several series, one below zero",
			figure.Chart{Kind: figure.Bar, Labels: []string{"Q1", "Q2"},
				Series: []figure.Series{{Name: "Sales", Values: []float64{20, 10}}, {Name: "Net", Values: []float64{-10, 5}}}},
			lines(
				"Q1  Sales            ████████████████████   20",
				"    Net    ██████████                      -10",
				"Q2  Sales            ██████████             10",
				"    Net              █████                   5",
			),
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := figure.Text(figure.Figure{Chart: &tc.chart}); got != tc.want {
				t.Errorf("got:\n%s\nwant:\n%s", got, tc.want)
			}
		})
	}
}

// A line chart at a terminal is the table of its values, which is also
// what the page offers for the drawing.
func TestALineChartIsTheTableOfItsValues(t *testing.T) {
	c := figure.Chart{Kind: figure.Line, Title: "Average highs", Labels: []string{"Jan", "Feb"},
		Series: []figure.Series{{Name: "Oslo", Values: []float64{-1.5, 0}}, {Name: "Lisbon", Values: []float64{15, 16.25}}},
		X:      figure.Axis{Title: "Month"}, Y: figure.Axis{Unit: "°C"}}
	want := lines(
		"Average highs",
		"Month  Oslo (°C)  Lisbon (°C)",
		"-----  ---------  -----------",
		"Jan         -1.5           15",
		"Feb            0        16.25",
	)
	if got := figure.Text(figure.Figure{Chart: &c}); got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
	if got, want := c.Summary(), "A line chart of 2 values in each of 2 series, from Jan to Feb. Oslo: lowest -1.5 °C (Jan), highest 0 °C (Feb). Lisbon: lowest 15 °C (Jan), highest 16.25 °C (Feb)."; got != want {
		t.Errorf("Summary() = %q, want %q", got, want)
	}
	if got := c.Name(); got != "Average highs" {
		t.Errorf("Name() = %q", got)
	}
	c.Title = ""
	if got := c.Name(); got != "Line chart" {
		t.Errorf("Name() of an untitled line chart = %q", got)
	}
}

func TestValuesReadAsPeopleWriteThem(t *testing.T) {
	tests := []struct {
		v    float64
		unit string
		want string
	}{
		{89, "€", "89 €"},
		{0.1 + 0.2, "", "0.3"},
		{-0.0, "", "0"},
		{1234567.891, "", "1234568"},
		{2.5e-7, "", "0.00000025"},
		{1e-300, "", "1e-300"},
		{1e15, "", "1000000000000000"},
		{-21.5, "°C", "-21.5 °C"},
		{40, "%", "40%"},
	}
	for _, tc := range tests {
		if got := figure.WithUnit(tc.v, tc.unit); got != tc.want {
			t.Errorf("WithUnit(%v, %q) = %q, want %q", tc.v, tc.unit, got, tc.want)
		}
	}
}

// Whatever a model writes in a table, the terminal gets one line per row
// (a title, the headings and the rule besides), with no control character
// in it to move the cursor or break the alignment.
func FuzzTextIsOneLinePerRow(f *testing.F) {
	f.Add("Fares", "To", "Porto\nMadrid", "\x1b[2J")
	f.Add("", "東京", "\u0301", "\r")
	f.Fuzz(func(t *testing.T, title, heading, a, b string) {
		tb := figure.Table{Title: title, Columns: []string{heading, "n"}, Rows: [][]string{{a, "1"}, {b, "2"}}}
		if (figure.Figure{Table: &tb}).Check() != nil {
			t.Skip()
		}
		text := figure.Text(figure.Figure{Table: &tb})
		want := 4 // headings, rule, two rows
		if title != "" {
			want++
		}
		if got := strings.Count(text, "\n"); got != want || !strings.HasSuffix(text, "\n") {
			t.Fatalf("%d lines, want %d:\n%s", got, want, text)
		}
		for _, r := range strings.TrimSuffix(text, "\n") {
			if r != '\n' && (r < 0x20 || (r >= 0x7f && r <= 0x9f)) {
				t.Fatalf("a control character %U in:\n%q", r, text)
			}
		}
	})
}
