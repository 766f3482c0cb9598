package templates

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"github.com/sweatpants-go/sweatpants/figure"
)

// renderFigure renders f as the page does and parses it as a browser would.
func renderFigure(t testing.TB, f figure.Figure) *html.Node {
	t.Helper()
	var buf bytes.Buffer
	if err := Figure("n-7", &f).Render(t.Context(), &buf); err != nil {
		t.Fatal(err)
	}
	doc, err := html.Parse(&buf)
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

// findAll returns the elements under n that match, in document order.
func findAll(n *html.Node, match func(*html.Node) bool) []*html.Node {
	var out []*html.Node
	for d := range n.Descendants() {
		if d.Type == html.ElementNode && match(d) {
			out = append(out, d)
		}
	}
	return out
}

func attr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}

func byTestID(id string) func(*html.Node) bool {
	return func(n *html.Node) bool { return attr(n, "data-testid") == id }
}

func byTag(tag string) func(*html.Node) bool {
	return func(n *html.Node) bool { return n.Data == tag }
}

// textOf is n's text, as textContent reads it.
func textOf(n *html.Node) string {
	var b strings.Builder
	for d := range n.Descendants() {
		if d.Type == html.TextNode {
			b.WriteString(d.Data)
		}
	}
	return b.String()
}

func texts(nodes []*html.Node) []string {
	out := make([]string, len(nodes))
	for i, n := range nodes {
		out[i] = textOf(n)
	}
	return out
}

// The elements a figure is made of. Anything else in a parsed figure — a
// script, an image, a link, an element from a label — was injected.
var figureElements = []string{
	"html", "head", "body", // the parser's own
	"figure", "figcaption", "div", "table", "thead", "tbody", "tr", "th", "td", "details", "summary", "ul", "li",
	"svg", "title", "desc", "g", "line", "text", "rect", "polyline", "circle",
}

// checkNothingInjected fails when the parsed figure holds an element or an
// attribute that figure.templ does not write: what a label could become if
// it were not escaped.
func checkNothingInjected(t testing.TB, doc *html.Node) {
	t.Helper()
	for n := range doc.Descendants() {
		if n.Type == html.CommentNode {
			t.Errorf("a comment in the figure: %q", n.Data)
		}
		if n.Type != html.ElementNode {
			continue
		}
		if !slices.Contains(figureElements, n.Data) {
			t.Errorf("an element <%s> in the figure", n.Data)
		}
		for _, a := range n.Attr {
			k := strings.ToLower(a.Key)
			if strings.HasPrefix(k, "on") || k == "style" || k == "href" || k == "src" || a.Namespace != "" {
				t.Errorf("an attribute %s=%q on <%s>", a.Key, a.Val, n.Data)
			}
		}
	}
}

func TestATableIsAnHTMLTable(t *testing.T) {
	tb := figure.Table{Title: "Fares", Columns: []string{"To", "Fare (€)"}, Rows: [][]string{{"Porto", "89"}, {"Madrid", "140"}}}
	doc := renderFigure(t, figure.Figure{Table: &tb})
	checkNothingInjected(t, doc)
	table := findAll(doc, byTestID("figure-table"))
	if len(table) != 1 {
		t.Fatalf("%d tables", len(table))
	}
	if got := texts(findAll(table[0], byTag("th"))); !slices.Equal(got, tb.Columns) {
		t.Errorf("headings %q, want %q", got, tb.Columns)
	}
	cells := findAll(table[0], byTag("td"))
	if got := texts(cells); !slices.Equal(got, []string{"Porto", "89", "Madrid", "140"}) {
		t.Errorf("cells %q", got)
	}
	if attr(cells[1], "class") != "num" || attr(cells[0], "class") == "num" {
		t.Errorf("a column of numbers is not aligned right, or one of words is: %q %q", attr(cells[0], "class"), attr(cells[1], "class"))
	}
	if got := texts(findAll(doc, byTestID("figure-title"))); !slices.Equal(got, []string{"Fares"}) {
		t.Errorf("title %q", got)
	}
}

// A chart is one image to assistive technology, named and summarized by
// elements that exist, and its values are a table beside it.
func TestAChartIsAnAccessibleDrawingWithItsValues(t *testing.T) {
	c := figure.Chart{Kind: figure.Bar, Title: "Fares", Labels: []string{"Porto", "Madrid", "Paris"},
		Series: []figure.Series{{Name: "Fare", Values: []float64{89, 140, 172}}, {Name: "Tax", Values: []float64{9, 14, 17}}}, Y: figure.Axis{Unit: "€"}}
	doc := renderFigure(t, figure.Figure{Chart: &c})
	checkNothingInjected(t, doc)
	svg := findAll(doc, byTestID("figure-chart"))
	if len(svg) != 1 || attr(svg[0], "role") != "img" {
		t.Fatalf("the chart is not one SVG image: %d", len(svg))
	}
	for _, ref := range []string{"aria-labelledby", "aria-describedby"} {
		id := attr(svg[0], ref)
		named := findAll(doc, func(n *html.Node) bool { return attr(n, "id") == id })
		if id == "" || len(named) != 1 || textOf(named[0]) == "" {
			t.Errorf("%s names %q, which is not one element with text", ref, id)
		}
	}
	if got := textOf(findAll(svg[0], byTag("desc"))[0]); !strings.Contains(got, "Fare: lowest 89 € (Porto), highest 172 € (Paris)") {
		t.Errorf("the description says %q", got)
	}
	bars := findAll(svg[0], byTestID("figure-bar"))
	if len(bars) != 6 {
		t.Fatalf("%d bars, want 6", len(bars))
	}
	if got := textOf(bars[2]); got != "Madrid — Fare: 140 €" {
		t.Errorf("the third bar says %q", got)
	}
	if got := texts(findAll(doc, byTestID("figure-x-label"))); !slices.Equal(got, c.Labels) {
		t.Errorf("x labels %q", got)
	}
	legend := texts(findAll(findAll(doc, byTestID("figure-legend"))[0], byTag("li")))
	if got := []string{strings.TrimSpace(legend[0]), strings.TrimSpace(legend[1])}; len(legend) != 2 || !slices.Equal(got, []string{"Fare", "Tax"}) {
		t.Errorf("legend %q", got)
	}
	values := findAll(doc, byTestID("figure-values-table"))[0]
	if got := texts(findAll(values, func(n *html.Node) bool { return n.Data == "th" && attr(n, "scope") == "row" })); !slices.Equal(got, c.Labels) {
		t.Errorf("the values table's rows are %q", got)
	}
	if got := texts(findAll(values, byTag("td"))); !slices.Equal(got, []string{"89", "9", "140", "14", "172", "17"}) {
		t.Errorf("the values table's cells are %q", got)
	}
}

func TestALineChartDrawsALinePerSeries(t *testing.T) {
	c := figure.Chart{Kind: figure.Line, Labels: []string{"Jan", "Feb", "Mar"},
		Series: []figure.Series{{Name: "Oslo", Values: []float64{-3, -2, 2}}, {Name: "Lisbon", Values: []float64{15, 16, 18}}}}
	doc := renderFigure(t, figure.Figure{Chart: &c})
	checkNothingInjected(t, doc)
	if n := len(findAll(doc, byTestID("figure-line"))); n != 2 {
		t.Errorf("%d lines, want 2", n)
	}
	if n := len(findAll(doc, byTestID("figure-point"))); n != 6 {
		t.Errorf("%d points, want 6", n)
	}
	if n := len(findAll(doc, byTestID("figure-bar"))); n != 0 {
		t.Errorf("%d bars in a line chart", n)
	}
	if got := textOf(findAll(doc, byTag("title"))[0]); got != "Line chart" {
		t.Errorf("an untitled line chart is named %q", got)
	}
}

// No title, label, heading or cell a model writes becomes markup: each is
// text in the parsed page, exactly as written, and the figure holds only
// the elements and attributes the template writes.
func FuzzFigureTextStaysText(f *testing.F) {
	for _, s := range []string{
		"<script>window.x=1</script>", `"onload="alert(1)`, `' onmouseover='alert(1)`, "</title><script>alert(1)</script>",
		"</svg><img src=x onerror=alert(1)>", "<![CDATA[x]]>", "<!-- c -->", "&lt;b&gt;", "<style>*{}</style>",
		"<foreignObject><iframe></iframe></foreignObject>", "{{ . }}", "東京 \u202e evil", "a\tb\nc",
	} {
		f.Add(s, "Porto "+s, s+" cell")
	}
	f.Fuzz(func(t *testing.T, title, label, cell string) {
		tb := figure.Table{Title: title, Columns: []string{label, "n"}, Rows: [][]string{{cell, "1"}}}
		c := figure.Chart{Kind: figure.Bar, Title: title, Labels: []string{label, cell},
			Series: []figure.Series{{Name: label, Values: []float64{1, 2}}, {Name: cell + "2", Values: []float64{3, 4}}},
			X:      figure.Axis{Title: cell}, Y: figure.Axis{Title: title, Unit: "€"}}
		for _, fig := range []figure.Figure{{Table: &tb}, {Chart: &c}} {
			if fig.Check() != nil {
				t.Skip() // not shown, so not drawn
			}
			doc := renderFigure(t, fig)
			checkNothingInjected(t, doc)
			// The HTML parser itself turns "\r" into "\n" and drops NUL:
			// the text compared is the text a browser would hold.
			if strings.ContainsAny(title+label+cell, "\r\x00") {
				continue
			}
			if fig.Table != nil {
				table := findAll(doc, byTestID("figure-table"))[0]
				if got := texts(findAll(table, byTag("td"))); !slices.Equal(got, []string{cell, "1"}) {
					t.Errorf("cells %q, want %q", got, []string{cell, "1"})
				}
				if got := texts(findAll(table, byTag("th"))); !slices.Equal(got, []string{label, "n"}) {
					t.Errorf("headings %q, want %q", got, []string{label, "n"})
				}
			} else {
				values := findAll(doc, byTestID("figure-values-table"))[0]
				rows := findAll(values, func(n *html.Node) bool { return n.Data == "th" && attr(n, "scope") == "row" })
				if got := texts(rows); !slices.Equal(got, []string{label, cell}) {
					t.Errorf("the values' rows %q, want %q", got, []string{label, cell})
				}
				if n := len(findAll(doc, byTestID("figure-bar"))); n != 4 {
					t.Errorf("%d bars, want 4", n)
				}
			}
			if title != "" {
				if got := texts(findAll(doc, byTestID("figure-title"))); !slices.Equal(got, []string{title}) {
					t.Errorf("title %q, want %q", got, title)
				}
			}
		}
	})
}
