package term

import (
	"context"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/sweatpants-go/sweatpants/agents"
	"github.com/sweatpants-go/sweatpants/elicit"
	"github.com/sweatpants-go/sweatpants/internal/chat"
	"github.com/sweatpants-go/sweatpants/internal/kindset"
	"github.com/sweatpants-go/sweatpants/internal/offline"
	"github.com/sweatpants-go/sweatpants/internal/registry"
	"github.com/sweatpants-go/sweatpants/internal/store"
	"github.com/sweatpants-go/sweatpants/turn"
)

// movedClock is a clock the test moves.
type movedClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *movedClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *movedClock) add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// timed waits ten minutes for a seat hold when told "wait", and asks a
// question that expires in five when told "ask".
var timed = agents.Assistant{Name: "timed", Turn: func(ctx context.Context, msg string) (string, error) {
	if msg == "wait" {
		if err := turn.Wait(ctx, elicit.WaitInput{Until: turn.Now(ctx).Add(10 * time.Minute), For: "the seat hold to lapse"}); err != nil {
			return "", err
		}
		return "the hold lapsed", nil
	}
	res, err := turn.Ask(turn.ExpiresIn(ctx, 5*time.Minute), elicit.Confirm, "Still there?", elicit.ConfirmInput{})
	if err != nil {
		return "", err
	}
	return "answer: " + string(res.Action), nil
}}

// The terminal says what a wait waits for and until when, asks nothing of
// it, and says when it ended; a question that expires says when, and,
// unanswered by then, that nobody answered in time.
func TestRunShowsWaitsAndExpiries(t *testing.T) {
	clk := &movedClock{t: time.Date(2030, 1, 2, 9, 0, 0, 0, time.UTC)}
	db, err := store.Open(t.Context(), filepath.Join(t.TempDir(), "t.db"), store.Options{Now: clk.Now})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	c := startConsoleOn(t, db, chat.Config{Assistants: registry.New(timed), Kinds: kindset.New(elicit.BuiltinKinds()...), Model: offline.New(), Now: clk.Now},
		Config{Agent: "timed", Now: clk.Now})
	fire := func() {
		t.Helper()
		if _, err := c.svc.Timers().FireDue(t.Context()); err != nil {
			t.Fatal(err)
		}
	}

	c.expect("you> ")
	c.send("wait")
	start := clk.Now()
	c.expect("── timed waits for the seat hold to lapse until " + clockTime(start.Add(10*time.Minute)) + " (in 10m0s); Ctrl-C stops it")
	clk.add(10 * time.Minute)
	fire()
	c.expect("(timed waited until " + clockTime(start.Add(10*time.Minute)) + ")")
	c.expect("timed> the hold lapsed")

	c.expect("you> ")
	c.send("ask")
	c.expect("Still there?")
	c.expect("(expires at " + clockTime(start.Add(15*time.Minute)) + ", in 5m0s; unanswered by then, it is withdrawn)")
	clk.add(5 * time.Minute)
	fire()
	c.expect("(timed asked “Still there?”: no answer in time, expired)")
	c.expect("timed> answer: expired")
}
