package e2e

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/sweatpants-go/sweatpants/llm/llmtest"
)

// The showcase's fares demo, picked from its menu with the offline model:
// a table of the fares and a bar chart of them appear in the chat in
// place, the chart an SVG image with a bar per fare and its values behind
// a toggle; then the temperatures demo draws a line per city. A reload
// shows the same figures.
func TestTheShowcaseShowsATableAndCharts(t *testing.T) {
	t.Parallel()
	a := startApp(t)
	p := openShowcase(t, a)
	q := p.ask("surprise me", "choice")
	p.must(q.GetByTestId("choice-Compare fares (a table and a chart)").Check())
	p.must(q.GetByTestId("elicit-submit").Click())
	p.replied("The cheapest is Porto at 39 €; Berlin costs the most, 189 €.")

	// checkFares checks the fares' table and chart, the chat's first two
	// figures.
	checkFares := func() {
		t.Helper()
		items := p.GetByTestId("figure-item")
		// In place: after the question, before the reply.
		order, err := p.Locator("#messages > *").EvaluateAll(`els => els.map(e => e.dataset.testid)`)
		p.must(err)
		if got := strings.Join(toStrings(order), " "); !strings.Contains(got, "elicit figure-item figure-item reply-turn") {
			t.Errorf("the chat's items are %s; want the two figures between the question and the reply", got)
		}

		table := items.Nth(0).GetByTestId("figure-table")
		p.must(expect.Locator(table.Locator("thead th")).ToHaveText([]string{"To", "Fare (€)", "Stops", "Departs"}))
		p.must(expect.Locator(table.Locator("tbody tr")).ToHaveCount(5))
		p.must(expect.Locator(table.Locator("tbody tr").First().Locator("td")).ToHaveText([]string{"Porto", "39", "0", "07:10"}))
		p.must(expect.Locator(table.Locator("tbody tr").Last().Locator("td")).ToHaveText([]string{"Berlin", "189", "1", "16:20"}))
		p.must(expect.Locator(items.Nth(0).GetByTestId("figure-title")).ToHaveText("Fares from Lisbon, next Friday"))

		chart := items.Nth(1).GetByTestId("figure-chart")
		p.must(expect.Locator(chart).ToHaveCount(1))
		p.must(expect.Locator(chart).ToHaveAttribute("role", "img"))
		p.must(expect.Locator(chart).ToHaveAccessibleName("Fares from Lisbon"))
		p.must(expect.Locator(chart).ToHaveAccessibleDescription("A bar chart of 5 values, from Porto to Berlin. Fare: lowest 39 € (Porto), highest 189 € (Berlin)."))
		bars := chart.GetByTestId("figure-bar")
		p.must(expect.Locator(bars).ToHaveCount(5))
		// Drawn, and as tall as the fares say: Berlin's bar is the tallest,
		// and Porto's is 39/189 of it.
		heights, err := bars.EvaluateAll(`bars => bars.map(b => b.getBoundingClientRect().height)`)
		p.must(err)
		h := toFloats(heights)
		if len(h) != 5 || h[4] <= 0 || h[0]/h[4] < 39.0/189-0.02 || h[0]/h[4] > 39.0/189+0.02 {
			t.Errorf("bar heights %v; want Porto's 39/189 of Berlin's", h)
		}
		p.must(expect.Locator(chart.GetByTestId("figure-x-label")).ToHaveText([]string{"Porto", "Madrid", "Paris", "London", "Berlin"}))
		// The drawing fits the chat's width.
		fits, err := chart.Evaluate(`svg => svg.getBoundingClientRect().right <= document.querySelector('#messages').getBoundingClientRect().right + 1`, nil)
		p.must(err)
		if fits != true {
			t.Error("the chart is wider than the chat")
		}

		values := items.Nth(1).GetByTestId("figure-values")
		p.must(expect.Locator(values.GetByTestId("figure-values-table")).Not().ToBeVisible())
		p.must(values.Locator("summary").Click())
		p.must(expect.Locator(values.Locator("tbody th")).ToHaveText([]string{"Porto", "Madrid", "Paris", "London", "Berlin"}))
		p.must(expect.Locator(values.Locator("tbody td")).ToHaveText([]string{"39", "64", "118", "97", "189"}))
	}
	p.must(expect.Locator(p.GetByTestId("figure-item")).ToHaveCount(2))
	checkFares()

	p.send("temperatures through the year")
	p.replied("Through the year: Lisbon's highs go from 15 °C to 28 °C. Oslo's highs go from -1 °C to 22 °C.")
	line := p.GetByTestId("figure-item").Last()
	p.must(expect.Locator(line.GetByTestId("figure")).ToHaveAttribute("data-kind", "line"))
	p.must(expect.Locator(line.GetByTestId("figure-line")).ToHaveCount(2))
	p.must(expect.Locator(line.GetByTestId("figure-point")).ToHaveCount(24))
	p.must(expect.Locator(line.GetByTestId("figure-legend").Locator("li")).ToHaveText([]string{"Lisbon", "Oslo"}))

	_, err := p.Reload()
	p.must(err)
	p.waitForStream()
	p.must(expect.Locator(p.GetByTestId("figure-item")).ToHaveCount(3))
	checkFares()
}

// A model shows a figure of its own; every word of it is hostile. Labels,
// headings and titles that look like markup are shown as text: no script
// runs, no element or handler is added, and the chart has the bars its
// values say.
func TestAModelsFigureShowsItsWordsAsText(t *testing.T) {
	t.Parallel()
	const (
		script  = `<script>window.__fig = 1</script>`
		handler = `"onload="window.__fig=2`
		img     = `</title></svg><img src=x onerror="window.__fig=3">`
	)
	table := `{"table":{"title":` + jsonString(img) + `,"columns":["Label",` + jsonString(handler) + `],"rows":[[` + jsonString(script) + `,"1"],["plain","2"]]}}`
	chart := `{"chart":{"kind":"bar","title":` + jsonString(script) + `,"labels":[` + jsonString(handler) + `,` + jsonString(img) + `,"plain"],` +
		`"series":[{"name":` + jsonString(script) + `,"values":[3,1,2]}],"y":{"title":` + jsonString(handler) + `,"unit":"€"}}}`
	model := llmtest.NewServer(t,
		llmtest.Reply{ToolCalls: []llmtest.ToolCall{{ID: "call_1", Name: "show-figure", Arguments: table}}},
		llmtest.Reply{ToolCalls: []llmtest.ToolCall{{ID: "call_2", Name: "show-figure", Arguments: chart}}},
		llmtest.Text("There you are."))
	a := startApp(t, "SWEATPANTS_PROVIDER=openai", "OPENAI_API_KEY=test", "OPENAI_BASE_URL="+model.URL)
	p := openAgent(t, a, "assistant")
	p.send("Show me the numbers")
	p.must(expect.Locator(p.lastAssistant()).ToHaveText("There you are."))

	check := func() {
		t.Helper()
		p.must(expect.Locator(p.GetByTestId("figure-item")).ToHaveCount(2))
		tbl := p.GetByTestId("figure-table")
		p.must(expect.Locator(tbl.Locator("thead th")).ToHaveText([]string{"Label", handler}))
		p.must(expect.Locator(tbl.Locator("tbody td").First()).ToHaveText(script))
		p.must(expect.Locator(p.GetByTestId("figure-title")).ToHaveText([]string{img, script}))
		chart := p.GetByTestId("figure-chart")
		p.must(expect.Locator(chart.GetByTestId("figure-bar")).ToHaveCount(3))
		p.must(expect.Locator(chart.Locator("title").First()).ToHaveText(script))
		p.must(p.GetByTestId("figure-values").Locator("summary").Click())
		p.must(expect.Locator(p.GetByTestId("figure-values-table").Locator("tbody th")).ToHaveText([]string{handler, img, "plain"}))

		for _, sel := range []string{"#messages script", "#messages img", "#messages [onload]", "#messages [onerror]", "#messages foreignObject"} {
			if n, err := p.Locator(sel).Count(); err != nil || n != 0 {
				t.Errorf("%d of %s in the chat (%v)", n, sel, err)
			}
		}
		ran, err := p.Evaluate(`() => window.__fig === undefined ? 0 : window.__fig`)
		p.must(err)
		if ran != 0 {
			t.Errorf("markup from the model ran: window.__fig = %v", ran)
		}
	}
	check()
	_, err := p.Reload()
	p.must(err)
	p.waitForStream()
	check()
}

// jsonString writes s as a JSON string, as a model's arguments hold it.
func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func toStrings(v any) []string {
	list, _ := v.([]any)
	out := make([]string, len(list))
	for i, x := range list {
		out[i], _ = x.(string)
	}
	return out
}

func toFloats(v any) []float64 {
	list, _ := v.([]any)
	out := make([]float64, len(list))
	for i, x := range list {
		switch n := x.(type) {
		case float64:
			out[i] = n
		case int:
			out[i] = float64(n)
		}
	}
	return out
}

// At the terminal, the fares demo prints its table as aligned text and its
// bar chart as rows of blocks, a bar per fare as long as the fare.
func TestTerminalFigures(t *testing.T) {
	t.Parallel()
	a := startTerm(t, "--agent", "showcase")
	a.say("compare prices")
	a.expect(strings.Join([]string{
		"  Fares from Lisbon, next Friday",
		"  To      Fare (€)  Stops  Departs",
		"  ------  --------  -----  -------",
		"  Porto         39      0  07:10",
		"  Madrid        64      0  09:35",
		"  Paris        118      0  11:50",
		"  London        97      0  13:05",
		"  Berlin       189      1  16:20",
	}, "\n"))
	a.expect("  Fare (€) by Destination\n")
	bars := map[string]int{}
	for _, city := range []string{"Porto", "Madrid", "Paris", "London", "Berlin"} {
		a.expect("  " + city)
		row := a.expect(" €\n")
		bars[city] = strings.Count(row, "█")
	}
	if bars["Berlin"] != 30 || bars["Porto"] != 6 || bars["Madrid"] != 10 || !(bars["London"] < bars["Paris"]) {
		t.Errorf("bars %v; want them as long as the fares (Berlin 30 blocks, Porto 39/189 of it)", bars)
	}
	a.expect("showcase> The cheapest is Porto at 39 €; Berlin costs the most, 189 €.")

	a.say("temperatures through the year")
	a.expect("  Month  Lisbon (°C)  Oslo (°C)\n")
	a.expect("  Jan             15         -1\n")
	a.expect("showcase> Through the year:")
	a.exit()
}
