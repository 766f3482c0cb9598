package timers_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/sweatpants-go/sweatpants/internal/apperr"
	"github.com/sweatpants-go/sweatpants/internal/store"
	"github.com/sweatpants-go/sweatpants/internal/timers"
)

// testClock is a clock a test moves.
type testClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *testClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *testClock) add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

var start = time.Date(2030, 1, 2, 9, 0, 0, 0, time.UTC)

// openStore opens a SQLite database in a temporary directory, on clk.
func openStore(t *testing.T, path string, clk *testClock) *store.DB {
	t.Helper()
	db, err := store.Open(t.Context(), path, store.Options{Now: clk.Now})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// calls records what a test's handlers were called with.
type calls struct {
	mu   sync.Mutex
	keys []string
}

func (c *calls) add(t timers.Timer) {
	c.mu.Lock()
	c.keys = append(c.keys, t.Conversation+"/"+t.Key)
	c.mu.Unlock()
}

func (c *calls) got() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Sorted(slices.Values(c.keys))
}

// fired returns a Firer that records each timer in c and is done with it.
func fired(c *calls) timers.Firer {
	return func(_ context.Context, t timers.Timer) (time.Time, error) {
		c.add(t)
		return time.Time{}, nil
	}
}

func set(t *testing.T, clock *timers.Clock, conv, key string, due time.Time) {
	t.Helper()
	if err := clock.Set(t.Context(), timers.Timer{Conversation: conv, Key: key, Owner: "me", Due: due}); err != nil {
		t.Fatal(err)
	}
}

func fireDue(t *testing.T, clock *timers.Clock, want int) {
	t.Helper()
	n, err := clock.FireDue(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if n != want {
		t.Errorf("FireDue fired %d timers, want %d", n, want)
	}
}

func keysOf(t *testing.T, clock *timers.Clock, conv string) []string {
	t.Helper()
	ts, err := clock.Of(t.Context(), conv)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, tm := range ts {
		out = append(out, tm.Key)
	}
	return out
}

// Each timer fires through the handler of its kind, only once due, and is
// gone once fired; OnFired hears of each.
func TestATimerFiresByItsKindAtItsTime(t *testing.T) {
	clk := &testClock{t: start}
	clock := timers.New(openStore(t, filepath.Join(t.TempDir(), "t.db"), clk), clk.Now, nil)
	var elicits, deadlines calls
	clock.Handle("elicit", fired(&elicits))
	clock.Handle("deadline", fired(&deadlines))
	var told calls
	clock.OnFired(func(tm timers.Timer, at time.Time) {
		if at.Before(tm.Due) {
			t.Errorf("OnFired of %s at %v, before its time %v", tm.Key, at, tm.Due)
		}
		told.add(tm)
	})
	set(t, clock, "c1", timers.Key("elicit", "e1"), start.Add(time.Minute))
	set(t, clock, "c1", timers.Key("deadline", "7"), start.Add(2*time.Minute))
	set(t, clock, "c2", timers.Key("elicit", "e2"), start.Add(time.Minute))

	fireDue(t, clock, 0)
	clk.add(time.Minute)
	fireDue(t, clock, 2)
	if got, want := elicits.got(), []string{"c1/elicit:e1", "c2/elicit:e2"}; !slices.Equal(got, want) {
		t.Errorf("elicit handler called for %v, want %v", got, want)
	}
	if got := deadlines.got(); len(got) != 0 {
		t.Errorf("the deadline fired a minute early: %v", got)
	}
	clk.add(time.Hour)
	fireDue(t, clock, 1)
	if got, want := deadlines.got(), []string{"c1/deadline:7"}; !slices.Equal(got, want) {
		t.Errorf("deadline handler called for %v, want %v", got, want)
	}
	if got, want := told.got(), []string{"c1/deadline:7", "c1/elicit:e1", "c2/elicit:e2"}; !slices.Equal(got, want) {
		t.Errorf("OnFired heard of %v, want %v", got, want)
	}
	if left := keysOf(t, clock, "c1"); len(left) != 0 {
		t.Errorf("timers left once fired: %v", left)
	}
	fireDue(t, clock, 0)
}

// A timer of a kind nobody handles yet is left, and fires once a handler
// is there and the first try's claim has lapsed; so is one whose handler
// failed.
func TestATimerNotFiredIsTriedAgainLater(t *testing.T) {
	clk := &testClock{t: start}
	clock := timers.New(openStore(t, filepath.Join(t.TempDir(), "t.db"), clk), clk.Now, nil)
	var got calls
	failing := true
	clock.Handle("flaky", func(_ context.Context, tm timers.Timer) (time.Time, error) {
		if failing {
			return time.Time{}, errors.New("the database was busy")
		}
		got.add(tm)
		return time.Time{}, nil
	})
	set(t, clock, "c", timers.Key("later", "1"), start)
	set(t, clock, "c", timers.Key("flaky", "1"), start)

	fireDue(t, clock, 0)
	if left, want := keysOf(t, clock, "c"), []string{"flaky:1", "later:1"}; !slices.Equal(left, want) {
		t.Fatalf("timers left = %v, want both kept for later", left)
	}
	clock.Handle("later", fired(&got))
	failing = false
	clk.add(timers.Hold / 2)
	fireDue(t, clock, 0) // still claimed by the first try
	clk.add(timers.Hold / 2)
	fireDue(t, clock, 2)
	if want := []string{"c/flaky:1", "c/later:1"}; !slices.Equal(got.got(), want) {
		t.Errorf("fired %v, want %v", got.got(), want)
	}
	if left := keysOf(t, clock, "c"); len(left) != 0 {
		t.Errorf("timers left = %v, want none", left)
	}
}

// A handler's NotFound (the conversation is gone) ends its timer, with no
// OnFired; a later time moves the timer there, to fire then.
func TestATimerEndsOnNotFoundAndMovesToALaterTime(t *testing.T) {
	clk := &testClock{t: start}
	clock := timers.New(openStore(t, filepath.Join(t.TempDir(), "t.db"), clk), clk.Now, nil)
	var told calls
	clock.OnFired(func(tm timers.Timer, _ time.Time) { told.add(tm) })
	tries := 0
	clock.Handle("gone", func(context.Context, timers.Timer) (time.Time, error) {
		tries++
		return time.Time{}, apperr.Errorf(apperr.NotFound, "no such conversation")
	})
	var moved calls
	clock.Handle("snooze", func(_ context.Context, tm timers.Timer) (time.Time, error) {
		if tm.Due.Before(start.Add(5 * time.Minute)) {
			return start.Add(5 * time.Minute), nil
		}
		moved.add(tm)
		return time.Time{}, nil
	})
	set(t, clock, "c", timers.Key("gone", "1"), start)
	set(t, clock, "c", timers.Key("snooze", "1"), start)

	fireDue(t, clock, 0)
	ts, err := clock.Of(t.Context(), "c")
	if err != nil {
		t.Fatal(err)
	}
	if len(ts) != 1 || ts[0].Key != "snooze:1" || !ts[0].Due.Equal(start.Add(5*time.Minute)) {
		t.Fatalf("timers after the first look = %+v, want only the snooze, moved to %v", ts, start.Add(5*time.Minute))
	}
	clk.add(4 * time.Minute)
	fireDue(t, clock, 0)
	clk.add(time.Minute) // its new time; no claim holds it, the move dropped it
	fireDue(t, clock, 1)
	if want := []string{"c/snooze:1"}; !slices.Equal(moved.got(), want) || !slices.Equal(told.got(), want) {
		t.Errorf("fired %v, OnFired %v, want only %v", moved.got(), told.got(), want)
	}
	clk.add(time.Hour)
	fireDue(t, clock, 0)
	if tries != 1 {
		t.Errorf("the timer of a gone conversation was tried %d times, want once", tries)
	}
}

// Run fires a timer at its time without being told, and one set behind
// its back (by another node) once poked; it stops when its context ends.
func TestRunFiresAtTheEarliestDueAndOnPoke(t *testing.T) {
	clk := &testClock{t: start}
	path := filepath.Join(t.TempDir(), "t.db")
	db := openStore(t, path, clk)
	clock := timers.New(db, clk.Now, nil)
	firings := make(chan timers.Timer, 4)
	clock.Handle("k", func(_ context.Context, tm timers.Timer) (time.Time, error) { return time.Time{}, nil })
	clock.OnFired(func(tm timers.Timer, _ time.Time) { firings <- tm })
	ctx, cancel := context.WithCancel(t.Context())
	stopped := make(chan struct{})
	go func() { clock.Run(ctx); close(stopped) }()

	// Due now: Set pokes the running clock.
	set(t, clock, "c", timers.Key("k", "now"), start)
	awaitFiring(t, firings, "k:now")

	// Set straight in the store, as another node does, for an hour on;
	// the clock moves there and the running one is poked.
	if err := db.SetTimer(t.Context(), timers.Timer{Conversation: "c", Key: timers.Key("k", "other"), Owner: "me", Due: start.Add(time.Hour)}); err != nil {
		t.Fatal(err)
	}
	select {
	case tm := <-firings:
		t.Fatalf("%s fired before its time", tm.Key)
	default:
	}
	clk.add(time.Hour)
	clock.Poke()
	awaitFiring(t, firings, "k:other")

	cancel()
	select {
	case <-stopped:
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not return once its context ended")
	}
}

func awaitFiring(t *testing.T, firings <-chan timers.Timer, key string) {
	t.Helper()
	select {
	case tm := <-firings:
		if tm.Key != key {
			t.Fatalf("fired %s, want %s", tm.Key, key)
		}
	case <-time.After(10 * time.Second):
		t.Fatalf("%s did not fire", key)
	}
}

// Two clocks over one database (two nodes) fire each timer once, however
// their looks interleave.
func TestTwoClocksOnOneDatabaseFireATimerOnce(t *testing.T) {
	clk := &testClock{t: start}
	db := openStore(t, filepath.Join(t.TempDir(), "t.db"), clk)
	var mu sync.Mutex
	count := map[string]int{}
	handler := func(_ context.Context, tm timers.Timer) (time.Time, error) {
		mu.Lock()
		count[tm.Conversation]++
		mu.Unlock()
		return time.Time{}, nil
	}
	a, b := timers.New(db, clk.Now, nil), timers.New(db, clk.Now, nil)
	a.Handle("k", handler)
	b.Handle("k", handler)
	const n = 300 // several claims' worth
	for i := range n {
		set(t, a, fmt.Sprintf("c%03d", i), timers.Key("k", "1"), start.Add(time.Duration(i%7)*time.Second))
	}
	clk.add(time.Minute)
	var wg sync.WaitGroup
	total := make([]int, 2)
	for i, c := range []*timers.Clock{a, b} {
		wg.Go(func() {
			got, err := c.FireDue(t.Context())
			if err != nil {
				t.Error(err)
			}
			total[i] = got
		})
	}
	wg.Wait()
	if total[0]+total[1] != n {
		t.Errorf("the clocks fired %d and %d, want %d in all", total[0], total[1], n)
	}
	for i := range n {
		if c := count[fmt.Sprintf("c%03d", i)]; c != 1 {
			t.Errorf("c%03d fired %d times, want once", i, c)
		}
	}
	clk.add(timers.Hold + time.Minute)
	fireDue(t, a, 0)
}

// A timer whose conversation another node serves (Unavailable) is not
// left claimed for Hold: it is free to be fired again after Elsewhere,
// by any node, as the one that serves it does.
func TestATimerServedElsewhereIsTriedAgainSoon(t *testing.T) {
	clk := &testClock{t: start}
	db := openStore(t, filepath.Join(t.TempDir(), "t.db"), clk)
	here, there := timers.New(db, clk.Now, nil), timers.New(db, clk.Now, nil)
	here.Handle("elicit", func(context.Context, timers.Timer) (time.Time, error) {
		return time.Time{}, apperr.Errorf(apperr.Unavailable, "This conversation is being served by another node; try again in a moment.")
	})
	var got calls
	there.Handle("elicit", fired(&got))
	set(t, here, "c", timers.Key("elicit", "q"), start)
	fireDue(t, here, 0)
	ts, _ := here.Of(t.Context(), "c")
	if len(ts) != 1 || !ts[0].Due.Equal(start.Add(timers.Elsewhere)) {
		t.Fatalf("after a firing elsewhere the timer is %+v, want it moved to %v", ts, start.Add(timers.Elsewhere))
	}
	clk.add(timers.Elsewhere)
	fireDue(t, there, 1)
	if keys := got.got(); !slices.Equal(keys, []string{"c/elicit:q"}) {
		t.Errorf("fired %v, want the timer fired by the node that serves it, within %v", keys, timers.Elsewhere)
	}
}
