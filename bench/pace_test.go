package main

import (
	"math"
	"slices"
	"testing"
	"time"
)

// draws returns n think times from browser b's thinker.
func draws(mean time.Duration, seed uint64, b, n int) []time.Duration {
	th := newThinker(mean, seed, b)
	out := make([]time.Duration, n)
	for i := range out {
		out[i] = th.next()
	}
	return out
}

func TestMeanThink(t *testing.T) {
	if got := meanThink(1000, 200); got != 5*time.Second {
		t.Errorf("meanThink(1000, 200) = %v, want 5s", got)
	}
	if got := meanThink(5, 50); got != 100*time.Millisecond {
		t.Errorf("meanThink(5, 50) = %v, want 100ms", got)
	}
}

func TestThinkerMean(t *testing.T) {
	const n = 100_000
	mean := 5 * time.Second
	got := draws(mean, 1, 1, n)
	var sum, sumSq float64
	for _, d := range got {
		if d < 0 {
			t.Fatalf("negative think time %v", d)
		}
		s := d.Seconds()
		sum += s
		sumSq += s * s
	}
	avg := sum / n
	// The standard error of the mean of n exponential draws is mean/√n,
	// about 0.3% here; 2% leaves room for any seed.
	if math.Abs(avg-5)/5 > 0.02 {
		t.Errorf("mean think time %.4f s, want 5 s within 2%%", avg)
	}
	// An exponential distribution's standard deviation equals its mean.
	if sd := math.Sqrt(sumSq/n - avg*avg); math.Abs(sd-5)/5 > 0.03 {
		t.Errorf("standard deviation %.4f s, want about 5 s as for an exponential", sd)
	}
	// And its median is mean·ln 2.
	slices.Sort(got)
	if med := got[n/2].Seconds(); math.Abs(med-5*math.Ln2)/(5*math.Ln2) > 0.03 {
		t.Errorf("median %.4f s, want about %.4f s", med, 5*math.Ln2)
	}
}

func TestThinkerRepeatable(t *testing.T) {
	a, b := draws(time.Second, 7, 3, 50), draws(time.Second, 7, 3, 50)
	if !slices.Equal(a, b) {
		t.Fatal("the same seed and browser drew different think times")
	}
	if slices.Equal(a, draws(time.Second, 7, 4, 50)) {
		t.Error("two browsers drew the same think times")
	}
	if slices.Equal(a, draws(time.Second, 8, 3, 50)) {
		t.Error("two seeds drew the same think times")
	}
}

func TestThinkerClosedLoop(t *testing.T) {
	th := newThinker(0, 1, 1)
	if th != nil {
		t.Fatalf("newThinker(0) = %+v, want nil", th)
	}
	if d := th.next(); d != 0 {
		t.Fatalf("a nil thinker thinks for %v", d)
	}
}

func TestAchieve(t *testing.T) {
	start := time.Unix(100, 0)
	var sent []time.Time
	for i := range 30 {
		sent = append(sent, start.Add(time.Duration(i)*100*time.Millisecond))
	}
	var p pacing
	p.achieve(sent, start, start.Add(2*time.Second)) // answers 0..19 are inside
	if p.AllActiveCount != 20 || p.AllActiveS != 2 || p.AchievedRate != 10 {
		t.Fatalf("achieve = %+v, want 20 answers in 2 s, 10/s", p)
	}
}

func TestCollector(t *testing.T) {
	c := newCollector(2)
	t0 := time.Unix(0, 0)
	c.record(t0, time.Millisecond)
	c.finished(t0.Add(3 * time.Second))
	c.finished(t0.Add(time.Second))
	c.finished(t0.Add(2 * time.Second))
	if c.count() != 1 || !c.firstDone.Equal(t0.Add(time.Second)) {
		t.Fatalf("collector = %+v, want 1 sample and the first finish at 1s", c)
	}
}

func TestTrackerShown(t *testing.T) {
	tr := newTracker()
	at := time.Unix(5, 0)
	tr.observe(event{Data: `<div data-testid="elicit" data-state="pending" data-elicit-id="1-1"></div>`, At: at})
	tr.observe(event{Data: `<div data-testid="elicit" data-state="pending" data-elicit-id="1-1"></div>`, At: at.Add(time.Second)})
	if got := tr.shown("1-1"); !got.Equal(at) {
		t.Errorf("shown = %v, want the first event's arrival %v", got, at)
	}
	tr.observe(event{Data: `<div data-testid="elicit" data-state="answered" data-elicit-id="1-2"></div>`, At: at})
	if got := tr.shown("1-2"); !got.IsZero() {
		t.Errorf("shown = %v for an elicit never pending", got)
	}
}

func TestLatest(t *testing.T) {
	a, b := time.Unix(1, 0), time.Unix(2, 0)
	if !latest(a, b).Equal(b) || !latest(b, a).Equal(b) {
		t.Error("latest did not pick the later time")
	}
}
