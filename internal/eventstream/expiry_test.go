package eventstream_test

import (
	"context"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/sweatpants-go/sweatpants/elicit"
	"github.com/sweatpants-go/sweatpants/internal/chat"
	"github.com/sweatpants-go/sweatpants/internal/consent"
	"github.com/sweatpants-go/sweatpants/internal/eventstream"
	"github.com/sweatpants-go/sweatpants/internal/kindset"
	"github.com/sweatpants-go/sweatpants/internal/registry"
	"github.com/sweatpants-go/sweatpants/internal/store"
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
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// An approval nobody answers in time fails closed, and the stream says so
// at each level: elicit.answered with the action expired, approval.resolved
// denied by nobody for the reason expired, and the call's tool.result
// denied, decided by expired, the tool never run.
func TestTheEventStreamSaysAnApprovalExpired(t *testing.T) {
	clk := &testClock{t: time.Date(2030, 1, 2, 9, 0, 0, 0, time.UTC)}
	db, err := store.Open(t.Context(), filepath.Join(t.TempDir(), "events.db"), store.Options{Now: clk.Now})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	svc := chat.New(chat.Config{Store: db, Now: clk.Now, Assistants: registry.New(booker()), Model: newPaced(), DecideByRule: true,
		Kinds: kindset.New(elicit.BuiltinKinds()...),
		Scope: func(ctx context.Context) context.Context { return consent.WithApprovalExpiry(ctx, 5*time.Minute) }})
	t.Cleanup(svc.Close)
	conv := startConv(t, svc, "me", "booker")
	f := follow(t, svc, "me", conv, "")

	send(t, svc, "me", conv, "a seat")
	req := last(f.until("the approval", is(eventstream.EventApprovalRequired))).Data.(eventstream.ApprovalRequired)
	clk.add(5 * time.Minute)
	if _, err := svc.Timers().FireDue(t.Context()); err != nil {
		t.Fatal(err)
	}
	evs := f.until("the run's end", is(eventstream.EventRunCompleted))
	var answered, resolved, result bool
	for _, e := range evs {
		switch d := e.Data.(type) {
		case eventstream.ElicitAnswered:
			answered = true
			if d.Elicit != req.Elicit || d.Response.Action != elicit.Expired {
				t.Errorf("elicit.answered = %+v, want the approval answered expired", d)
			}
		case eventstream.ApprovalResolved:
			resolved = true
			if d.Elicit != req.Elicit || d.Allowed || d.Choice != elicit.DenyCall || d.By != "nobody" || d.Reason != eventstream.ReasonExpired {
				t.Errorf("approval.resolved = %+v, want denied by nobody, for the reason expired", d)
			}
		case eventstream.ToolResult:
			result = true
			if d.Outcome != consent.OutcomeDenied || d.DecidedBy != consent.ByExpired || d.Error != consent.WhyExpired || d.Output != nil {
				t.Errorf("tool.result = %+v, want denied, decided by expired, never run", d)
			}
		case eventstream.RunCompleted:
			if d.Text != "Not booked." {
				t.Errorf("the run ended saying %q, want the booking denied", d.Text)
			}
		}
	}
	if !answered || !resolved || !result {
		t.Errorf("events %v, want elicit.answered, approval.resolved and tool.result", types(evs))
	}
}
