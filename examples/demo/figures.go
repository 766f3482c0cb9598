package demo

import (
	"context"
	"fmt"
	"slices"
	"strconv"

	"github.com/sweatpants-go/sweatpants/agents"
	"github.com/sweatpants-go/sweatpants/figure"
	"github.com/sweatpants-go/sweatpants/turn"
)

// Figures: the showcase's demos that answer with a table and charts
// (turn.Show), and the tool through which a model shows one it wrote.

// Figures is the agent that lends a model the show-figure tool.
var Figures = agents.New("figures", "Shows tables and charts in the chat.")

// ShowFigure shows the user a table or a chart the model wrote. A figure
// that breaks the rules (figure.Figure.Check) is not shown; the model is
// told what is wrong, and may try again.
var ShowFigure = agents.NewTool(Figures, "show-figure",
	"Show the user a table, or a bar or line chart, of data you have, instead of writing the numbers out. Set either table or chart.",
	func(ctx context.Context, f figure.Figure) (string, error) {
		if err := turn.Show(ctx, f); err != nil {
			return "", err
		}
		return "Shown to the user: " + shown(f) + ".", nil
	})

// shown says what figure f is, for the model that showed it.
func shown(f figure.Figure) string {
	if f.Table != nil {
		return fmt.Sprintf("a table of %d rows", len(f.Table.Rows))
	}
	return fmt.Sprintf("a %s chart of %d values", f.Chart.Kind, len(f.Chart.Labels))
}

// fare is a flight's fare, as the fares demo compares them.
type fare struct {
	to     string
	price  float64
	stops  int
	depart string
}

// fares are the fares the demo compares: made up, and fixed, so the demo
// shows the same figures every time (and a replay finds the same ones).
var fares = []fare{
	{"Porto", 39, 0, "07:10"},
	{"Madrid", 64, 0, "09:35"},
	{"Paris", 118, 0, "11:50"},
	{"London", 97, 0, "13:05"},
	{"Berlin", 189, 1, "16:20"},
}

// showFares shows the fares as a table, then as a bar chart, and names the
// cheapest and the dearest.
func showFares(ctx context.Context, _ noInput) (string, error) {
	table := figure.Table{Title: "Fares from Lisbon, next Friday", Columns: []string{"To", "Fare (€)", "Stops", "Departs"}}
	chart := figure.Chart{Kind: figure.Bar, Title: "Fares from Lisbon", Series: []figure.Series{{Name: "Fare"}},
		X: figure.Axis{Title: "Destination"}, Y: figure.Axis{Title: "Fare", Unit: "€"}}
	for _, f := range fares {
		table.Rows = append(table.Rows, []string{f.to, figure.FormatValue(f.price), strconv.Itoa(f.stops), f.depart})
		chart.Labels = append(chart.Labels, f.to)
		chart.Series[0].Values = append(chart.Series[0].Values, f.price)
	}
	if err := turn.Show(ctx, figure.Figure{Table: &table}); err != nil {
		return "", err
	}
	if err := turn.Show(ctx, figure.Figure{Chart: &chart}); err != nil {
		return "", err
	}
	cheap := slices.MinFunc(fares, func(a, b fare) int { return compare(a.price, b.price) })
	dear := slices.MaxFunc(fares, func(a, b fare) int { return compare(a.price, b.price) })
	return fmt.Sprintf("The cheapest is %s at %s; %s costs the most, %s.",
		cheap.to, figure.WithUnit(cheap.price, "€"), dear.to, figure.WithUnit(dear.price, "€")), nil
}

func compare(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// highs are rough average daily highs by month, in °C.
var highs = []struct {
	city   string
	values []float64
}{
	{"Lisbon", []float64{15, 16, 18, 20, 22, 26, 28, 28, 27, 23, 18, 16}},
	{"Oslo", []float64{-1, 0, 4, 10, 16, 20, 22, 21, 16, 9, 4, 0}},
}

var months = []string{"Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"}

// showTemperatures shows the highs through the year as a line per city.
func showTemperatures(ctx context.Context, _ noInput) (string, error) {
	chart := figure.Chart{Kind: figure.Line, Title: "Average daily highs", Labels: months,
		X: figure.Axis{Title: "Month"}, Y: figure.Axis{Title: "High", Unit: "°C"}}
	reply := ""
	for _, h := range highs {
		chart.Series = append(chart.Series, figure.Series{Name: h.city, Values: h.values})
		reply += fmt.Sprintf(" %s's highs go from %s to %s.", h.city, figure.WithUnit(slices.Min(h.values), "°C"), figure.WithUnit(slices.Max(h.values), "°C"))
	}
	if err := turn.Show(ctx, figure.Figure{Chart: &chart}); err != nil {
		return "", err
	}
	return "Through the year:" + reply, nil
}
