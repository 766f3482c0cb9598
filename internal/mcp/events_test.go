package mcp_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sweatpants-go/sweatpants/internal/mcp"
	"github.com/sweatpants-go/sweatpants/internal/store"
	"github.com/sweatpants-go/sweatpants/internal/store/storetest"
)

// replay collects what the store's After yields: the events, and the
// errors, so that a test sees whether an error came alone.
func replay(es sdk.EventStore, session, stream string, index int) (data []string, errs []error) {
	for d, err := range es.After(context.Background(), session, stream, index) {
		if err != nil {
			errs = append(errs, err)
			continue
		}
		data = append(data, string(d))
	}
	return data, errs
}

// The SDK's contract for an event store, kept in the database: events in
// order after an index; an unknown stream, a closed session or dropped
// events an error and nothing else.
func TestTheEventStoreKeepsTheSDKsContract(t *testing.T) {
	ctx := context.Background()
	es := mcp.NewEventStore(storetest.Open(t), mcp.EventOptions{StreamBytes: 10})
	for _, st := range []string{"", "call"} {
		if err := es.Open(ctx, "s1", st); err != nil {
			t.Fatal(err)
		}
	}
	for _, d := range []string{"", "a", "b"} {
		if err := es.Append(ctx, "s1", "call", []byte(d)); err != nil {
			t.Fatal(err)
		}
	}

	t.Run("events after an index, in order", func(t *testing.T) {
		if got, errs := replay(es, "s1", "call", 0); strings.Join(got, "|") != "a|b" || errs != nil {
			t.Errorf("after 0: %q, %v; want a|b", got, errs)
		}
		if got, errs := replay(es, "s1", "", -1); got != nil || errs != nil {
			t.Errorf("an open stream with no events: %q, %v; want nothing, no error", got, errs)
		}
	})
	t.Run("an unknown stream is an error alone", func(t *testing.T) {
		for _, c := range [][2]string{{"s1", "other"}, {"s2", "call"}} {
			if got, errs := replay(es, c[0], c[1], -1); got != nil || len(errs) != 1 {
				t.Errorf("%s/%s: %q, %v; want one error and nothing else", c[0], c[1], got, errs)
			}
		}
		if err := es.Append(ctx, "s2", "call", []byte("x")); err == nil {
			t.Error("append to a stream never opened: no error")
		}
	})
	t.Run("dropped events are ErrEventsPurged, never a partial replay", func(t *testing.T) {
		for _, d := range []string{"cccccc", "dddddd"} { // 14 bytes with b: over the bound of 10
			if err := es.Append(ctx, "s1", "call", []byte(d)); err != nil {
				t.Fatal(err)
			}
		}
		got, errs := replay(es, "s1", "call", 1)
		if got != nil || len(errs) != 1 || !errors.Is(errs[0], sdk.ErrEventsPurged) {
			t.Errorf("after 1, with b and c dropped: %q, %v; want ErrEventsPurged alone", got, errs)
		}
		if got, errs := replay(es, "s1", "call", 3); strings.Join(got, "|") != "dddddd" || errs != nil {
			t.Errorf("after 3, what is kept: %q, %v; want dddddd", got, errs)
		}
	})
	t.Run("a closed session is forgotten", func(t *testing.T) {
		if err := es.SessionClosed(ctx, "s1"); err != nil {
			t.Fatal(err)
		}
		if got, errs := replay(es, "s1", "call", 3); got != nil || len(errs) != 1 {
			t.Errorf("after the session closed: %q, %v; want one error", got, errs)
		}
	})
}

// clock is a settable time.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// A session whose client went away without closing it is forgotten once
// idle for mcp.IdleSession, by the opening of a later stream.
func TestAnIdleSessionsEventsAreForgotten(t *testing.T) {
	ctx := context.Background()
	c := &clock{t: time.UnixMilli(1_700_000_000_000)}
	es := mcp.NewEventStore(storetest.Open(t, store.Options{Now: c.now}), mcp.EventOptions{Now: c.now})
	for _, s := range []string{"gone", "busy"} {
		if err := es.Open(ctx, s, "call"); err != nil {
			t.Fatal(err)
		}
		if err := es.Append(ctx, s, "call", []byte("e")); err != nil {
			t.Fatal(err)
		}
	}
	c.advance(mcp.IdleSession)
	if err := es.Append(ctx, "busy", "call", []byte("f")); err != nil {
		t.Fatal(err)
	}
	c.advance(time.Minute)
	if err := es.Open(ctx, "new", "call"); err != nil {
		t.Fatal(err)
	}
	if got, errs := replay(es, "gone", "call", -1); got != nil || len(errs) != 1 {
		t.Errorf("the idle session's stream: %q, %v; want it forgotten", got, errs)
	}
	if got, errs := replay(es, "busy", "call", -1); strings.Join(got, "|") != "e|f" || errs != nil {
		t.Errorf("the busy session's stream: %q, %v; want e|f", got, errs)
	}
}

// After a restart, a session connected again under its id opens its
// standalone stream again, which the SDK numbers from 0 again: it starts
// over, while the streams of the calls made before stay to be resumed.
func TestASessionConnectedAgainStartsItsStandaloneStreamOver(t *testing.T) {
	ctx := context.Background()
	db := storetest.Open(t)
	before := mcp.NewEventStore(db, mcp.EventOptions{})
	for _, st := range []string{"", "call"} {
		if err := before.Open(ctx, "s1", st); err != nil {
			t.Fatal(err)
		}
		for _, d := range []string{"old0", "old1"} {
			if err := before.Append(ctx, "s1", st, []byte(d)); err != nil {
				t.Fatal(err)
			}
		}
	}

	after := mcp.NewEventStore(db, mcp.EventOptions{}) // the server restarted
	if err := after.Open(ctx, "s1", ""); err != nil {
		t.Fatal(err)
	}
	if got, errs := replay(after, "s1", "", -1); got != nil || errs != nil {
		t.Errorf("the standalone stream opened again: %q, %v; want it empty", got, errs)
	}
	if err := after.Append(ctx, "s1", "", []byte("new0")); err != nil {
		t.Fatal(err)
	}
	if got, errs := replay(after, "s1", "", -1); strings.Join(got, "|") != "new0" || errs != nil {
		t.Errorf("then: %q, %v; want new0 alone", got, errs)
	}
	if got, errs := replay(after, "s1", "call", 0); strings.Join(got, "|") != "old1" || errs != nil {
		t.Errorf("a call's stream from before: %q, %v; want old1", got, errs)
	}
}
