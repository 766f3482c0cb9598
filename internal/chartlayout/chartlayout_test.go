package chartlayout

import (
	"math"
	"slices"
	"strconv"
	"testing"

	"github.com/sweatpants-go/sweatpants/figure"
	"github.com/sweatpants-go/sweatpants/internal/textfit"
)

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9*math.Max(1, math.Abs(b)) }

func TestTicksReadWell(t *testing.T) {
	tests := []struct {
		name   string
		lo, hi float64
		want   []float64
		step   float64
	}{
		{"fares", 0, 140, []float64{0, 50, 100, 150}, 50},
		{"a fraction", 0, 1, []float64{0, 0.2, 0.4, 0.6, 0.8, 1}, 0.2},
		{"below zero", -20, 140, []float64{-50, 0, 50, 100, 150}, 50},
		{"reversed", 140, -20, []float64{-50, 0, 50, 100, 150}, 50},
		{"one value", 3, 3, []float64{2.6, 2.8, 3, 3.2, 3.4}, 0.2},
		{"only zero", 0, 0, []float64{-1, -0.5, 0, 0.5, 1}, 0.5},
		{"quarters", 0, 1.1, []float64{0, 0.25, 0.5, 0.75, 1, 1.25}, 0.25},
		{"temperatures", -3.5, 27, []float64{-10, 0, 10, 20, 30}, 10},
		{"the largest values", -1e15, 1e15, []float64{-1e15, -5e14, 0, 5e14, 1e15}, 5e14},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, step := Ticks(tc.lo, tc.hi, 5)
			if !near(step, tc.step) || len(got) != len(tc.want) {
				t.Fatalf("Ticks(%v, %v) = %v step %v, want %v step %v", tc.lo, tc.hi, got, step, tc.want, tc.step)
			}
			for i := range got {
				if !near(got[i], tc.want[i]) {
					t.Fatalf("Ticks(%v, %v) = %v, want %v", tc.lo, tc.hi, got, tc.want)
				}
			}
			if got[0] > min(tc.lo, tc.hi) || got[len(got)-1] < max(tc.lo, tc.hi) {
				t.Errorf("the ticks %v do not cover [%v, %v]", got, tc.lo, tc.hi)
			}
		})
	}
}

func TestTickLabels(t *testing.T) {
	tests := []struct {
		v, step float64
		want    string
	}{
		{0.25, 0.25, "0.25"},
		{0.5, 0.25, "0.5"},
		{5, 2.5, "5"},
		{7.5, 2.5, "7.5"},
		{13 * 0.2, 0.2, "2.6"}, // 2.6000000000000005
		{math.Copysign(0, -1), 1, "0"},
		{-50, 50, "-50"},
		{1e15, 5e14, "1000000000000000"},
		{0.000125, 0.000025, "0.000125"},
		{1.5e-300, 5e-301, "1.5e-300"}, // too fine for decimals
		{2e-300, 5e-301, "2e-300"},
	}
	for _, tc := range tests {
		if got := TickLabel(tc.v, tc.step); got != tc.want {
			t.Errorf("TickLabel(%v, %v) = %q, want %q", tc.v, tc.step, got, tc.want)
		}
	}
}

func TestScaleMapsLinearly(t *testing.T) {
	y := Scale{Lo: 0, Hi: 100, From: 250, To: 10} // a y axis: up is smaller
	for _, tc := range []struct{ v, want float64 }{{0, 250}, {100, 10}, {50, 130}, {-10, 274}} {
		if got := y.Map(tc.v); !near(got, tc.want) {
			t.Errorf("Map(%v) = %v, want %v", tc.v, got, tc.want)
		}
	}
	if got := (Scale{Lo: 3, Hi: 3, From: 0, To: 10}).Map(3); got != 5 {
		t.Errorf("an empty domain maps to %v, want the middle, 5", got)
	}
}

func inside(r, area Rect) bool {
	const e = 1e-9
	return r.X >= area.X-e && r.Y >= area.Y-e && r.X+r.W <= area.X+area.W+e && r.Y+r.H <= area.Y+area.H+e
}

// Bars stand on the zero line, as tall as their values say, side by side
// in their label's band, inside the plotting area.
func TestBarsStandOnZeroAndScaleWithTheirValues(t *testing.T) {
	c := figure.Chart{Kind: figure.Bar, Labels: []string{"Porto", "Madrid", "Paris"}, Series: []figure.Series{{Name: "Fare", Values: []float64{10, 20, 40}}}, Y: figure.Axis{Unit: "€"}}
	p := Layout(c)
	if len(p.Bars) != 3 {
		t.Fatalf("%d bars, want 3", len(p.Bars))
	}
	if got := ticksText(p.YTicks); !slices.Equal(got, []string{"0", "10", "20", "30", "40"}) {
		t.Errorf("y ticks %v", got)
	}
	band := p.Area.W / 3
	for i, b := range p.Bars {
		if !inside(b.Rect, p.Area) {
			t.Errorf("bar %d %+v is outside the area %+v", i, b.Rect, p.Area)
		}
		if !near(b.Y+b.H, p.Baseline) {
			t.Errorf("bar %d ends at %v, not on the zero line %v", i, b.Y+b.H, p.Baseline)
		}
		if want := c.Series[0].Values[i] / 40 * p.Area.H; !near(b.H, want) {
			t.Errorf("bar %d is %v tall, want %v", i, b.H, want)
		}
		if mid := b.X + (b.W+1)/2; !near(mid, p.Area.X+(float64(i)+0.5)*band) {
			t.Errorf("bar %d is centred at %v, not in the middle of its band", i, mid)
		}
		if !near(b.W+1, band*barGroupFill) {
			t.Errorf("bar %d is %v wide, want %v less a hairline", i, b.W, band*barGroupFill)
		}
	}
	if !near(p.Baseline, p.Area.Y+p.Area.H) {
		t.Errorf("with no value below zero, the zero line %v is not the area's bottom %v", p.Baseline, p.Area.Y+p.Area.H)
	}
	if got, want := p.Bars[1].Text, "Madrid — Fare: 20 €"; got != want {
		t.Errorf("bar 2 says %q, want %q", got, want)
	}
	if p.Legend != nil {
		t.Errorf("a chart of one series has a legend: %v", p.Legend)
	}
}

func TestNegativeBarsHangBelowZero(t *testing.T) {
	p := Layout(figure.Chart{Kind: figure.Bar, Labels: []string{"a", "b"}, Series: []figure.Series{{Values: []float64{-10, 30}}}})
	neg, pos := p.Bars[0], p.Bars[1]
	if !near(neg.Y, p.Baseline) || neg.H <= 0 {
		t.Errorf("the negative bar %+v does not hang from the zero line %v", neg.Rect, p.Baseline)
	}
	if !near(pos.Y+pos.H, p.Baseline) {
		t.Errorf("the positive bar %+v does not stand on the zero line %v", pos.Rect, p.Baseline)
	}
	if !near(pos.H/neg.H, 3) {
		t.Errorf("bars of 30 and -10 are %v and %v tall, want 3 to 1", pos.H, neg.H)
	}
	if !inside(neg.Rect, p.Area) || !inside(pos.Rect, p.Area) {
		t.Errorf("bars %+v %+v leave the area %+v", neg.Rect, pos.Rect, p.Area)
	}
}

// Several series: a bar each per label, in series order and colour, not
// overlapping, and a legend.
func TestSeriesStandSideBySide(t *testing.T) {
	c := figure.Chart{Kind: figure.Bar, Labels: []string{"2023", "2024"}, Series: []figure.Series{
		{Name: "Fare", Values: []float64{100, 120}}, {Name: "Tax", Values: []float64{10, 12}}, {Name: "Fee", Values: []float64{5, 5}},
	}}
	p := Layout(c)
	if len(p.Bars) != 6 {
		t.Fatalf("%d bars, want 6", len(p.Bars))
	}
	for i := 1; i < len(p.Bars); i++ {
		if a, b := p.Bars[i-1], p.Bars[i]; a.X+a.W > b.X {
			t.Errorf("bar %d (%v wide at %v) overlaps bar %d at %v", i-1, a.W, a.X, i, b.X)
		}
	}
	for i, b := range p.Bars {
		if b.Series != i%3 || b.Color != Palette[i%3] {
			t.Errorf("bar %d is of series %d in %s, want series %d in %s", i, b.Series, b.Color, i%3, Palette[i%3])
		}
	}
	want := []LegendEntry{{"Fare", Palette[0]}, {"Tax", Palette[1]}, {"Fee", Palette[2]}}
	if !slices.Equal(p.Legend, want) {
		t.Errorf("legend %v, want %v", p.Legend, want)
	}
}

func TestLinesGoThroughTheMiddleOfEachBand(t *testing.T) {
	c := figure.Chart{Kind: figure.Line, Labels: []string{"Jan", "Feb", "Mar", "Apr"}, Series: []figure.Series{{Name: "Oslo", Values: []float64{-3.5, -2, 3, 9}}}, Y: figure.Axis{Unit: "°C"}}
	p := Layout(c)
	if len(p.Lines) != 1 || len(p.Lines[0].Points) != 4 || len(p.Bars) != 0 {
		t.Fatalf("laid out %+v", p)
	}
	lo, hi := p.YTicks[0], p.YTicks[len(p.YTicks)-1]
	y := Scale{Lo: mustFloat(t, lo.Text), Hi: mustFloat(t, hi.Text), From: lo.Pos, To: hi.Pos}
	band := p.Area.W / 4
	for i, pt := range p.Lines[0].Points {
		if !near(pt.X, p.Area.X+(float64(i)+0.5)*band) {
			t.Errorf("point %d at x %v, want the middle of its band", i, pt.X)
		}
		if want := y.Map(c.Series[0].Values[i]); !near(pt.Y, want) {
			t.Errorf("point %d at y %v, want %v", i, pt.Y, want)
		}
	}
	if got := p.Lines[0].Points[0].Text; got != "Jan — Oslo: -3.5 °C" {
		t.Errorf("the first point says %q", got)
	}
	if p.YTitle != "°C" {
		t.Errorf("the y axis's title is %q, want its unit", p.YTitle)
	}
}

func mustFloat(t *testing.T, s string) float64 {
	t.Helper()
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func ticksText(ticks []Tick) []string {
	out := make([]string, len(ticks))
	for i, tk := range ticks {
		out[i] = tk.Text
	}
	return out
}

// Labels along the x axis never overlap: when they cannot all be shown,
// every k-th is, and each is cut to the room it has, its full text kept.
func TestXLabelsDoNotOverlap(t *testing.T) {
	tests := []struct {
		name   string
		labels []string
		shown  int
	}{
		{"a few short ones", []string{"Porto", "Madrid", "Paris"}, 3},
		{"long ones", []string{"Lisbon Humberto Delgado", "Porto Francisco Sá Carneiro", "Faro"}, 3},
		{"a hundred days", days(100), 0}, // some, not all
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := figure.Chart{Kind: figure.Line, Labels: tc.labels, Series: []figure.Series{{Values: make([]float64, len(tc.labels))}}}
			p := Layout(c)
			if tc.shown > 0 && len(p.XLabels) != tc.shown {
				t.Errorf("%d labels shown, want %d", len(p.XLabels), tc.shown)
			}
			if tc.shown == 0 && (len(p.XLabels) < 5 || len(p.XLabels) >= len(tc.labels)) {
				t.Errorf("%d of %d labels shown; want some, not all", len(p.XLabels), len(tc.labels))
			}
			for i, l := range p.XLabels {
				if textfit.Width(l.Text) < textfit.Width(l.Full) && []rune(l.Text)[len([]rune(l.Text))-1] != '…' {
					t.Errorf("label %q was cut without an ellipsis", l.Text)
				}
				if i == 0 {
					continue
				}
				prev := p.XLabels[i-1]
				if room := l.Pos - prev.Pos; float64(textfit.Width(prev.Text)+textfit.Width(l.Text))/2*charWidth > room {
					t.Errorf("labels %q and %q, %v apart, overlap", prev.Text, l.Text, room)
				}
			}
		})
	}
}

func days(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = "2026-" + strconv.Itoa(1+i/28) + "-" + strconv.Itoa(1+i%28)
	}
	return out
}

// Whatever values a checked chart holds — tiny, huge, equal, of either
// sign — its marks are finite and inside the plotting area, and bars
// stand on the zero line.
func FuzzLayoutStaysInside(f *testing.F) {
	f.Add(39.0, 189.0, 0.0, true)
	f.Add(-1e15, 1e15, 0.5, false)
	f.Add(1e-300, 2e-300, 3e-300, true)
	f.Add(7.0, 7.0, 7.0, false)
	f.Add(999999999999999.0, 999999999999998.0, -0.0, true)
	f.Fuzz(func(t *testing.T, a, b, c float64, bar bool) {
		kind := figure.Line
		if bar {
			kind = figure.Bar
		}
		ch := figure.Chart{Kind: kind, Labels: []string{"a", "b", "c"}, Series: []figure.Series{{Name: "s", Values: []float64{a, b, c}}, {Name: "t", Values: []float64{c, a, b}}}}
		if (figure.Figure{Chart: &ch}).Check() != nil {
			t.Skip()
		}
		p := Layout(ch)
		finite := func(vs ...float64) bool {
			for _, v := range vs {
				if math.IsNaN(v) || math.IsInf(v, 0) {
					return false
				}
			}
			return true
		}
		area := Rect{p.Area.X - 0.01, p.Area.Y - 0.01, p.Area.W + 0.02, p.Area.H + 0.02}
		for _, bm := range p.Bars {
			if !finite(bm.X, bm.Y, bm.W, bm.H) || bm.H < 0 || !inside(bm.Rect, area) {
				t.Fatalf("values %v %v %v: bar %+v, area %+v", a, b, c, bm.Rect, p.Area)
			}
			if top, bottom := bm.Y, bm.Y+bm.H; math.Abs(top-p.Baseline) > 0.01 && math.Abs(bottom-p.Baseline) > 0.01 {
				t.Fatalf("values %v %v %v: bar %+v does not touch the zero line %v", a, b, c, bm.Rect, p.Baseline)
			}
		}
		for _, l := range p.Lines {
			for _, pt := range l.Points {
				if !finite(pt.X, pt.Y) || !inside(Rect{pt.X, pt.Y, 0, 0}, area) {
					t.Fatalf("values %v %v %v: point %+v, area %+v", a, b, c, pt, p.Area)
				}
			}
		}
		if len(p.YTicks) < 2 || len(p.YTicks) > 12 {
			t.Fatalf("values %v %v %v: %d ticks", a, b, c, len(p.YTicks))
		}
		for i := 1; i < len(p.YTicks); i++ {
			if p.YTicks[i].Text == p.YTicks[i-1].Text {
				t.Fatalf("values %v %v %v: two ticks read %q", a, b, c, p.YTicks[i].Text)
			}
		}
	})
}
