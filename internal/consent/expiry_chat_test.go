package consent_test

import (
	"context"
	"errors"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sweatpants-go/sweatpants/agents"
	"github.com/sweatpants-go/sweatpants/elicit"
	"github.com/sweatpants-go/sweatpants/internal/chat"
	"github.com/sweatpants-go/sweatpants/internal/chat/chattest"
	"github.com/sweatpants-go/sweatpants/internal/consent"
	"github.com/sweatpants-go/sweatpants/internal/kindset"
	"github.com/sweatpants-go/sweatpants/internal/offline"
	"github.com/sweatpants-go/sweatpants/internal/pageview"
	"github.com/sweatpants-go/sweatpants/internal/registry"
	"github.com/sweatpants-go/sweatpants/internal/store"
	"github.com/sweatpants-go/sweatpants/internal/tree"
	"github.com/sweatpants-go/sweatpants/policy"
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

var (
	hotel = agents.New("hotel", "Books rooms.")
	// ran counts the rooms booked: the tool's runs.
	ran  atomic.Int32
	room = agents.NewTool(hotel, "book", "Book a room", func(ctx context.Context, in struct{}) (string, error) {
		ran.Add(1)
		return "booked", nil
	}).Does(policy.Writes, policy.Spends)
	// booker books a room, its approval expiring after ten minutes by
	// its ask rule, and says what came of it.
	booker = agents.Assistant{Name: "booker",
		Policy: []policy.Rule{{Action: policy.Ask, Tool: "hotel/book", Expires: 10 * time.Minute}},
		Turn: func(ctx context.Context, _ string) (string, error) {
			_, err := room.Call(ctx, struct{}{})
			if d, ok := errors.AsType[*agents.DeniedError](err); ok {
				if d.Expired {
					return "not booked: expired", nil
				}
				return "not booked", nil
			}
			if err != nil {
				return "", err
			}
			return "booked", nil
		}}
)

// An approval asked before a restart expires at its time after it: the
// server down past it, the next one answers it expired at once, the call
// is denied and recorded so, and the tool never runs.
func TestAnApprovalExpiresAcrossARestart(t *testing.T) {
	clk := &movedClock{t: time.Date(2030, 1, 2, 9, 0, 0, 0, time.UTC)}
	path := filepath.Join(t.TempDir(), "c.db")
	open := func() (*chat.Service, *store.DB) {
		db, err := store.Open(t.Context(), path, store.Options{Now: clk.Now})
		if err != nil {
			t.Fatal(err)
		}
		svc := chat.New(chat.Config{Store: db, Now: clk.Now, Assistants: registry.New(booker), Model: offline.New(),
			Kinds: kindset.New(elicit.BuiltinKinds()...), SuspendAfter: new(time.Duration(0))})
		return svc, db
	}
	svc, db := open()
	conv, err := svc.Create(t.Context(), "me", "booker")
	if err != nil {
		t.Fatal(err)
	}
	if err := svc.Send(t.Context(), "me", conv.ID, "a room"); err != nil {
		t.Fatal(err)
	}
	v := chattest.WaitView(t, svc, "me", conv.ID, "the approval", func(v pageview.View) bool { return chattest.PendingElicit(v) != nil })
	if e := chattest.PendingElicit(v); e.Request.Kind != elicit.Approve.Name || e.Request.Expires == nil || !e.Request.Expires.Equal(clk.Now().Add(10*time.Minute)) {
		t.Fatalf("asked %+v, want an approval expiring in ten minutes", e.Request)
	}
	svc.Close()
	db.Close()

	clk.add(time.Hour) // down past its time
	svc, db = open()
	t.Cleanup(func() { svc.Close(); db.Close() })
	if _, err := svc.Timers().FireDue(t.Context()); err != nil {
		t.Fatal(err)
	}
	v = chattest.WaitView(t, svc, "me", conv.ID, "the reply", func(v pageview.View) bool {
		return !v.Status.Running && len(v.Items) > 0 && v.Items[len(v.Items)-1].Kind == tree.AssistantMessage
	})
	if got := v.Items[len(v.Items)-1].Text; got != "not booked: expired" {
		t.Errorf("reply = %q, want the booking denied as expired", got)
	}
	if n := ran.Load(); n != 0 {
		t.Errorf("the tool ran %d times, want never", n)
	}
	calls, err := db.ToolCalls(t.Context(), "me", "", "", "", 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(calls) != 1 {
		t.Fatalf("%d tool calls recorded, want the one denied", len(calls))
	}
	if rec, _ := tree.Decode[tree.ToolRecord](calls[0]); rec.Outcome != consent.OutcomeDenied || rec.DecidedBy != consent.ByExpired || rec.Error != consent.WhyExpired {
		t.Errorf("recorded %+v, want denied, decided by expired", rec)
	}
}
