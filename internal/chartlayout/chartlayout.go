// Package chartlayout lays a chart out for drawing: where its axes,
// ticks, labels, bars and points go. It is the page's concern, apart from
// package figure, which an author writes a chart with.
package chartlayout

import (
	"math"
	"strconv"

	"github.com/sweatpants-go/sweatpants/figure"
	"github.com/sweatpants-go/sweatpants/internal/textfit"
)

// The geometry of a chart: where its axes, ticks, labels, bars and points
// go in a drawing of DrawingWidth × DrawingHeight units. The page scales the drawing to
// its width (an SVG viewBox), so the numbers here are in the drawing's own
// units. Layout is pure arithmetic on a checked figure.Chart, tested apart from
// any markup; the templ component only writes down what it says.

// The drawing's size, in its own units.
const (
	DrawingWidth  = 640
	DrawingHeight = 300
)

// The text of the drawing is set at FontSize units; charWidth is an
// estimate of one character's width at that size, used to leave room for
// tick labels and to fit the x axis's labels in their space. It errs wide
// (a digit of a sans-serif font is nearer 0.55 em) so labels do not touch.
const (
	FontSize  = 12
	charWidth = 7.2
)

// The space around the plotting area: above and right of it a little
// air; left of it the y axis's tick labels (and its title, if any), below
// it the x axis's labels (and its title).
const (
	marginTop    = 12
	marginRight  = 12
	tickGap      = 6  // between a tick label and the axis
	titleSpace   = 20 // an axis's title and the gap beside it
	xLabelSpace  = 22 // the x axis's labels under the plotting area
	barGroupFill = 0.8
	targetTicks  = 5 // about how many steps the y axis is divided into
)

// Palette holds the series' colours, in order: the Okabe–Ito colours, told
// apart by people with the common kinds of colour blindness, the dark ones
// first. figure.MaxSeries matches its length.
var Palette = [figure.MaxSeries]string{"#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000", "#F0E442"}

// Rect is a rectangle: its top-left corner, width and height.
type Rect struct{ X, Y, W, H float64 }

// Scale maps values from [Lo, Hi] onto [From, To] linearly. From may be
// greater than To: a y axis grows upwards while the drawing's y grows down.
type Scale struct{ Lo, Hi, From, To float64 }

// Map returns where v goes.
func (s Scale) Map(v float64) float64 {
	if s.Hi == s.Lo {
		return (s.From + s.To) / 2
	}
	return s.From + (v-s.Lo)/(s.Hi-s.Lo)*(s.To-s.From)
}

// Ticks divides [lo, hi] into steps that read well — 1, 2, 2.5 or 5 times a
// power of ten — about n of them, and returns the ticks from the last one
// at or below lo to the first one at or above hi, and the step. An empty
// range is widened around its value first, so that a single value still
// has an axis.
func Ticks(lo, hi float64, n int) (ticks []float64, step float64) {
	if hi < lo {
		lo, hi = hi, lo
	}
	if hi == lo {
		d := math.Abs(lo) / 10
		if d == 0 {
			d = 1
		}
		lo, hi = lo-d, hi+d
	}
	step = niceStep((hi - lo) / float64(max(n, 1)))
	first, last := math.Floor(lo/step), math.Ceil(hi/step)
	for i := first; i <= last; i++ {
		t := i * step // a multiple, not a running sum: no error accumulates
		if t == 0 {
			t = 0 // not -0
		}
		ticks = append(ticks, t)
	}
	return ticks, step
}

// niceStep rounds raw up to 1, 2, 2.5 or 5 times a power of ten.
func niceStep(raw float64) float64 {
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	switch f := raw / mag; {
	case f <= 1:
		return mag
	case f <= 2:
		return 2 * mag
	case f <= 2.5:
		return 2.5 * mag
	case f <= 5:
		return 5 * mag
	}
	return 10 * mag
}

// TickLabel writes tick v of an axis divided in steps of step, with as
// many decimals as the step needs and no trailing zeros: 0, 0.25, 0.5.
func TickLabel(v, step float64) string {
	// The fewest decimals that write the step exactly: 2.5 needs one, 0.25
	// two, 50 none.
	decimals, exact := 0, false
	for m := step; decimals <= 12; m, decimals = m*10, decimals+1 {
		if m >= 0.5 && math.Abs(m-math.Round(m)) <= 1e-9*m {
			exact = true
			break
		}
	}
	if !exact && v != 0 {
		// A step too fine for decimals (values near 1e-300): in exponent
		// form, with enough digits to tell a tick from the next.
		digits := int(math.Ceil(math.Log10(math.Abs(v)/step))) + 2
		return strconv.FormatFloat(v, 'g', max(digits, 2), 64)
	}
	return textfit.Fixed(v, decimals)
}

// Plot is a chart laid out for drawing.
type Plot struct {
	Kind figure.ChartKind
	// Area is where the values are drawn, inside the axes.
	Area Rect
	// YTicks are the y axis's ticks: Pos is a y, each with a grid line.
	YTicks []Tick
	// XLabels are the labels shown along the x axis: Pos is an x. When the
	// labels do not all fit, every k-th is shown; each shortened to fit.
	XLabels []Tick
	// Baseline is the y bars grow from (the value 0), and where the x axis
	// is drawn.
	Baseline float64
	Bars     []BarMark
	Lines    []LineMark
	// XTitle and YTitle are the axes' titles with their units; YTitleAt is
	// where the (turned) y title is centred.
	XTitle, YTitle string
	XTitleAt       Point
	YTitleAt       Point
	// Legend names the series and their colours, when there are several.
	Legend []LegendEntry
}

// Tick is a mark along an axis: its position, its text as drawn (maybe
// shortened) and in full.
type Tick struct {
	Pos        float64
	Text, Full string
}

// BarMark is one value drawn as a bar. Text says what it is in words, for a
// tooltip and for assistive technology: "Porto — Fare: 89 €".
type BarMark struct {
	Rect
	Series int
	Color  string
	Text   string
}

// LineMark is one series drawn as a line through its points.
type LineMark struct {
	Series int
	Color  string
	Points []Point
}

// Point is a point of the drawing; Text, for a value of a line, says what
// it is in words.
type Point struct {
	X, Y float64
	Text string
}

// LegendEntry is a series' name and colour.
type LegendEntry struct{ Name, Color string }

// Layout lays c out. c must have passed figure.Figure's Check: a chart with no labels or
// series, or ragged series, is not laid out.
func Layout(c figure.Chart) Plot {
	p := Plot{Kind: c.Kind, XTitle: textfit.OneLine(textfit.Titled(c.X.Title, c.X.Unit)), YTitle: textfit.OneLine(textfit.Titled(c.Y.Title, c.Y.Unit))}
	if len(c.Labels) == 0 || len(c.Series) == 0 {
		return p
	}
	lo, hi := c.Extent()
	ticks, step := Ticks(lo, hi, targetTicks)

	// The area's left edge leaves room for the widest tick label.
	widest := 0
	for _, t := range ticks {
		widest = max(widest, len(TickLabel(t, step)))
	}
	left := float64(widest)*charWidth + tickGap + 2
	if p.YTitle != "" {
		left += titleSpace
	}
	bottom := float64(xLabelSpace)
	if p.XTitle != "" {
		bottom += titleSpace
	}
	p.Area = Rect{X: left, Y: marginTop, W: DrawingWidth - left - marginRight, H: DrawingHeight - marginTop - bottom}
	y := Scale{Lo: ticks[0], Hi: ticks[len(ticks)-1], From: p.Area.Y + p.Area.H, To: p.Area.Y}
	for _, t := range ticks {
		s := TickLabel(t, step)
		p.YTicks = append(p.YTicks, Tick{Pos: y.Map(t), Text: s, Full: s})
	}
	p.XTitleAt = Point{X: p.Area.X + p.Area.W/2, Y: DrawingHeight - 6}
	p.YTitleAt = Point{X: FontSize + 2, Y: p.Area.Y + p.Area.H/2}

	band := p.Area.W / float64(len(c.Labels))
	p.XLabels = xLabels(c.Labels, p.Area.X, band)
	p.Baseline = p.Area.Y + p.Area.H
	if c.Kind == figure.Bar {
		p.Baseline = y.Map(0) // within the axis: extent includes 0 for bars
		p.Bars = bars(c, p.Area.X, band, y)
	} else {
		p.Lines = lines(c, p.Area.X, band, y)
	}
	if len(c.Series) > 1 {
		for i, s := range c.Series {
			p.Legend = append(p.Legend, LegendEntry{Name: s.Name, Color: Palette[i%len(Palette)]})
		}
	}
	return p
}

// xLabels places the labels under the middle of their bands. When a band
// is too narrow for a readable label (minLabelChars characters), only
// every k-th label is shown, so that shown labels have k bands of room.
// Each is shortened to its room; Full keeps the whole label.
func xLabels(labels []string, x0, band float64) []Tick {
	const minLabelChars = 5
	k := max(1, int(math.Ceil((minLabelChars*charWidth+4)/band)))
	room := max(1, int((float64(k)*band-4)/charWidth))
	var out []Tick
	for i := 0; i < len(labels); i += k {
		full := textfit.OneLine(labels[i])
		out = append(out, Tick{Pos: x0 + (float64(i)+0.5)*band, Text: textfit.Truncate(full, room), Full: full})
	}
	return out
}

// bars lays out a bar per value: the bars of one label side by side in the
// middle of its band, each growing from 0 up to a positive value or down
// to a negative one.
func bars(c figure.Chart, x0, band float64, y Scale) []BarMark {
	group := band * barGroupFill
	w := group / float64(len(c.Series))
	gap := 0.0
	if w > 6 {
		gap = 1 // a hairline between the bars of a group
	}
	zero := y.Map(0)
	var out []BarMark
	for i, label := range c.Labels {
		for s, series := range c.Series {
			if i >= len(series.Values) {
				continue
			}
			v := series.Values[i]
			top, h := y.Map(v), 0.0
			if top > zero {
				top, h = zero, top-zero
			} else {
				h = zero - top
			}
			out = append(out, BarMark{
				Rect:   Rect{X: x0 + float64(i)*band + (band-group)/2 + float64(s)*w, Y: top, W: w - gap, H: h},
				Series: s, Color: Palette[s%len(Palette)],
				Text: valueText(c, label, series.Name, v),
			})
		}
	}
	return out
}

// lines lays out a line per series through the middle of each label's band.
func lines(c figure.Chart, x0, band float64, y Scale) []LineMark {
	out := make([]LineMark, len(c.Series))
	for s, series := range c.Series {
		l := LineMark{Series: s, Color: Palette[s%len(Palette)]}
		for i, v := range series.Values {
			if i >= len(c.Labels) {
				break
			}
			l.Points = append(l.Points, Point{X: x0 + (float64(i)+0.5)*band, Y: y.Map(v), Text: valueText(c, c.Labels[i], series.Name, v)})
		}
		out[s] = l
	}
	return out
}

// valueText says a value in words: "Porto — Fare: 89 €", or "Porto: 89 €"
// for a series with no name.
func valueText(c figure.Chart, label, series string, v float64) string {
	if series == "" {
		return textfit.OneLine(label) + ": " + figure.WithUnit(v, c.Y.Unit)
	}
	return textfit.OneLine(label) + " — " + textfit.OneLine(series) + ": " + figure.WithUnit(v, c.Y.Unit)
}
