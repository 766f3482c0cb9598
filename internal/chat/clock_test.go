package chat_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/sweatpants-go/sweatpants/agents"
	"github.com/sweatpants-go/sweatpants/internal/chat"
	"github.com/sweatpants-go/sweatpants/internal/inbound"
	"github.com/sweatpants-go/sweatpants/internal/offline"
	"github.com/sweatpants-go/sweatpants/internal/pageview"
	"github.com/sweatpants-go/sweatpants/internal/registry"
	"github.com/sweatpants-go/sweatpants/internal/store"
	"github.com/sweatpants-go/sweatpants/internal/store/storetest"
	"github.com/sweatpants-go/sweatpants/internal/tree"
	"github.com/sweatpants-go/sweatpants/turn"
)

// clock is a clock a test moves by hand, shared by the store and the
// service.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// newClockedService starts a service whose store and turns read clk.
func newClockedService(t *testing.T, clk *clock, reg *registry.Assistants) *chat.Service {
	t.Helper()
	db := storetest.Open(t, store.Options{Now: clk.Now})
	svc := chat.New(chat.Config{Store: db, Assistants: reg, Model: offline.New(), Now: clk.Now})
	t.Cleanup(svc.Close)
	return svc
}

// A program (or a test) that sets the service's clock sets the time agent
// code reads, the age GC measures and how long a turn has worked: years
// from now, all of them follow it.
func TestTheServiceReadsOneClock(t *testing.T) {
	future := time.Date(2031, 3, 4, 5, 6, 7, 0, time.UTC)

	t.Run("agent code reads it", func(t *testing.T) {
		clk := &clock{t: future}
		teller := agents.Assistant{Name: "teller", Turn: func(ctx context.Context, msg string) (string, error) {
			return turn.Now(ctx).UTC().Format(time.RFC3339), nil
		}}
		svc := newClockedService(t, clk, registry.New(teller))
		conv, _ := svc.Create(t.Context(), "me", "")
		if err := svc.Send(t.Context(), "me", conv.ID, "what time is it?"); err != nil {
			t.Fatal(err)
		}
		v := waitView(t, svc, "me", conv.ID, "the reply", func(v pageview.View) bool { return !v.Status.Running && lastItem(v).Kind == tree.AssistantMessage })
		if got, want := lastItem(v).Text, future.Format(time.RFC3339); got != want {
			t.Errorf("turn.Now = %s, want the service's clock, %s", got, want)
		}
	})

	t.Run("gc measures age by it", func(t *testing.T) {
		clk := &clock{t: future}
		echo := agents.Assistant{Name: "echo", Turn: func(ctx context.Context, msg string) (string, error) { return msg, nil }}
		svc := newClockedService(t, clk, registry.New(echo))
		conv, _ := svc.Create(t.Context(), "me", "")
		if err := svc.Send(t.Context(), "me", conv.ID, "first"); err != nil {
			t.Fatal(err)
		}
		v := waitView(t, svc, "me", conv.ID, "the reply", func(v pageview.View) bool { return !v.Status.Running && lastItem(v).Kind == tree.AssistantMessage })
		if err := svc.Edit(t.Context(), "me", conv.ID, v.Items[0].ID, inbound.Message{Text: "second"}); err != nil { // the first branch is left behind
			t.Fatal(err)
		}
		waitView(t, svc, "me", conv.ID, "the new reply", func(v pageview.View) bool { return !v.Status.Running && lastItem(v).Text == "second" })
		if got, err := svc.GC(t.Context(), "me", conv.ID); err != nil || got != (chat.Collected{}) {
			t.Fatalf("GC within the retention = %+v, %v; want nothing removed", got, err)
		}
		clk.add(chat.DefaultGCRetention + time.Hour)
		got, err := svc.GC(t.Context(), "me", conv.ID)
		if err != nil {
			t.Fatal(err)
		}
		if got.Nodes == 0 || got.Entries == 0 {
			t.Errorf("GC a retention later by the service's clock = %+v; want the left branch and old reflog entries removed", got)
		}
	})

	t.Run("the batch window runs on it", func(t *testing.T) {
		clk := &clock{t: future}
		waiter := agents.Assistant{Name: "waiter", Turn: func(ctx context.Context, msg string) (string, error) {
			<-ctx.Done() // records and shows nothing until stopped
			return "", ctx.Err()
		}}
		svc := newClockedService(t, clk, registry.New(waiter))
		conv, _ := svc.Create(t.Context(), "me", "")
		if err := svc.Send(t.Context(), "me", conv.ID, "one"); err != nil {
			t.Fatal(err)
		}
		sent, err := svc.SendMessage(t.Context(), "me", conv.ID, inbound.Message{Text: "two"}) // no time passed by the clock
		if err != nil || sent != inbound.SentJoined {
			t.Fatalf("a message at once = %q, %v; want it joined to the one before", sent, err)
		}
		clk.add(chat.DefaultBatchWindow + time.Second)
		sent, err = svc.SendMessage(t.Context(), "me", conv.ID, inbound.Message{Text: "three"})
		if err != nil || sent != inbound.SentInterrupted {
			t.Errorf("a message a batch window later by the clock = %q, %v; want it to interrupt", sent, err)
		}
	})
}
