package store

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/sweatpants-go/sweatpants/internal/timers"
)

// Timers are claimed when due, by one claimer at a time; a claim lapses,
// so a timer whose node died firing it is claimed again; the next due
// moment counts claims; setting a timer again moves it and drops its claim.
func TestTimersAreClaimedOnceWhenDue(t *testing.T) {
	contract(t, testTimersAreClaimedOnceWhenDue)
}

func testTimersAreClaimedOnceWhenDue(t *testing.T, target string) {
	ctx := context.Background()
	start := time.UnixMilli(1_700_000_000_000)
	db := openAt(t, target, &clock{t: start})
	if _, ok, err := db.NextDue(ctx); err != nil || ok {
		t.Fatalf("NextDue of none = %v, %v", ok, err)
	}
	set := func(conv, key string, due time.Time) {
		t.Helper()
		if err := db.SetTimer(ctx, timers.Timer{Conversation: conv, Key: key, Owner: "me", Due: due}); err != nil {
			t.Fatal(err)
		}
	}
	set("c1", "elicit:a", start.Add(2*time.Minute))
	set("c1", "elicit:b", start.Add(time.Minute))
	set("c2", "elicit:a", start.Add(time.Hour))
	if next, ok, err := db.NextDue(ctx); err != nil || !ok || !next.Equal(start.Add(time.Minute)) {
		t.Fatalf("NextDue = %v %v %v, want %v", next, ok, err, start.Add(time.Minute))
	}
	if due, err := db.ClaimDue(ctx, start, time.Minute, 10); err != nil || len(due) != 0 {
		t.Fatalf("claimed %v before any was due (%v)", due, err)
	}

	// Two claimers at once at +3m: each timer due goes to one of them.
	at := start.Add(3 * time.Minute)
	var mu sync.Mutex
	got := map[string]int{}
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			due, err := db.ClaimDue(ctx, at, time.Minute, 10)
			if err != nil {
				t.Error(err)
				return
			}
			mu.Lock()
			for _, tm := range due {
				got[tm.Conversation+"/"+tm.Key]++
			}
			mu.Unlock()
		})
	}
	wg.Wait()
	if len(got) != 2 || got["c1/elicit:a"] != 1 || got["c1/elicit:b"] != 1 {
		t.Fatalf("claims = %v, want each of c1's two timers claimed once", got)
	}
	// Claimed, they are not due again until the claim lapses...
	if next, _, _ := db.NextDue(ctx); !next.Equal(at.Add(time.Minute)) {
		t.Fatalf("NextDue while claimed = %v, want the claim's end %v", next, at.Add(time.Minute))
	}
	if due, _ := db.ClaimDue(ctx, at.Add(30*time.Second), time.Minute, 10); len(due) != 0 {
		t.Fatalf("claimed again while the claim held: %v", due)
	}
	// ...when another node takes them, earliest first.
	due, err := db.ClaimDue(ctx, at.Add(time.Minute), time.Minute, 10)
	if err != nil || len(due) != 2 || due[0].Key != "elicit:b" || due[0].Owner != "me" || !due[0].Due.Equal(start.Add(time.Minute)) {
		t.Fatalf("after the claim lapsed, claimed %+v (%v)", due, err)
	}
	// Set again, a timer moves and is free of its claim; cleared, it is gone.
	set("c1", "elicit:b", at.Add(90*time.Second))
	if err := db.ClearTimer(ctx, "c1", "elicit:a"); err != nil {
		t.Fatal(err)
	}
	list, err := db.TimersOf(ctx, "c1")
	if err != nil || len(list) != 1 || list[0].Key != "elicit:b" || !list[0].Due.Equal(at.Add(90*time.Second)) {
		t.Fatalf("c1's timers = %+v (%v)", list, err)
	}
	if due, _ := db.ClaimDue(ctx, at.Add(90*time.Second), time.Minute, 10); len(due) != 1 || due[0].Key != "elicit:b" {
		t.Fatalf("the moved timer was not claimed at its new time: %v", due)
	}
}
