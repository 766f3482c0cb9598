package eventstream_test

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/sweatpants-go/sweatpants/agents"
	"github.com/sweatpants-go/sweatpants/elicit"
	"github.com/sweatpants-go/sweatpants/internal/chat"
	"github.com/sweatpants-go/sweatpants/internal/chat/chattest"
	"github.com/sweatpants-go/sweatpants/internal/eventstream"
	"github.com/sweatpants-go/sweatpants/internal/kindset"
	"github.com/sweatpants-go/sweatpants/internal/registry"
	"github.com/sweatpants-go/sweatpants/internal/store"
	"github.com/sweatpants-go/sweatpants/internal/tree"
	"github.com/sweatpants-go/sweatpants/turn"
)

var (
	keepIt = elicit.Form[struct {
		OK bool `json:"ok"`
	}]()
	fares   = agents.New("fares", "Finds fares.")
	cheaper = agents.NewTool(fares, "cheaper", "Find a cheaper flight", func(context.Context, struct{}) (string, error) { return "SK99", nil })
)

// tryer tries a cheaper flight on a child branch (a tool finds it, the
// user is asked whether to keep it) and keeps it or goes back as the user
// says. Its reply says which, in its own words.
func tryer() agents.Assistant {
	return agents.Assistant{Name: "tryer", Turn: func(ctx context.Context, msg string) (string, error) {
		tried, err := agents.Fork(ctx, "a cheaper flight", func(ctx context.Context) (string, error) {
			flight, err := cheaper.Call(ctx, struct{}{})
			if err != nil {
				return "", err
			}
			got, err := turn.Ask(ctx, keepIt, "Keep "+flight+"?", struct{}{})
			if err != nil || !got.Content.OK {
				return "", err
			}
			return flight, nil
		})
		if err != nil {
			return "", err
		}
		if tried.Value == "" {
			return msg + " as planned", tried.Back(ctx)
		}
		return msg + " on " + tried.Value, tried.Forward(ctx)
	}}
}

// tries is a conversation of the tryer, its events as a client following
// it got them, and its database, whose reflog the test recovers from.
type tries struct {
	svc  *chat.Service
	db   *store.DB
	conv string
	f    *follower
}

func newTries(t *testing.T) *tries {
	t.Helper()
	svc, db := chattest.New(t, chat.Config{Assistants: registry.New(tryer()), Model: newPaced(), DecideByRule: true, Kinds: kindset.New()})
	conv := startConv(t, svc, "me", "tryer")
	return &tries{svc: svc, db: db, conv: conv, f: follow(t, svc, "me", conv, "")}
}

// try sends msg, answers whether to keep the cheaper flight and returns the
// run's events, to its end.
func (c *tries) try(t *testing.T, msg string, keep bool) []eventstream.Event {
	t.Helper()
	send(t, c.svc, "me", c.conv, msg)
	q := last(c.f.until("the question", is(eventstream.EventElicitAsked))).Data.(eventstream.ElicitAsked)
	content := `{"ok":false}`
	if keep {
		content = `{"ok":true}`
	}
	approve(t, c.svc, c.conv, q.Elicit, content)
	c.f.until("the run's end", is(eventstream.EventRunCompleted))
	start := slicesIndex(c.f.seen, func(e eventstream.Event) bool {
		s, ok := e.Data.(eventstream.RunStarted)
		return ok && s.Text == msg
	})
	return c.f.seen[start:]
}

// recoverTry moves the conversation back to the tried branch that fork
// began, by the reflog entry that began it.
func (c *tries) recoverTry(t *testing.T, fork int64) {
	t.Helper()
	entries, err := c.db.Reflog(t.Context(), c.conv)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.Head == fork && e.Action == tree.ActTry {
			if err := c.svc.Recover(t.Context(), "me", c.conv, e.ID); err != nil {
				t.Fatal(err)
			}
			return
		}
	}
	t.Fatalf("no reflog entry began the try at %d", fork)
}

// A try is told as it happens: fork.tried, the block's events, then
// fork.ended, kept or not. Kept, the run goes on and completes. Gone back
// from, fork.ended names where the flow went back to and the tried
// branch's last node, and the stop that closed the tried branch is no
// run.completed: the run completes once, replied, from where the block
// began. Recovered from the reflog, the tried branch is where the next run
// starts: its run.started follows the tried branch's last node.
func TestTheEventStreamTellsATryKeptOrGoneBackFrom(t *testing.T) {
	c := newTries(t)
	blockTypes := []string{eventstream.EventRunStarted, eventstream.EventForkTried, eventstream.EventToolCall, eventstream.EventToolResult,
		eventstream.EventElicitAsked, eventstream.EventElicitAnswered, eventstream.EventForkEnded, eventstream.EventTokenDelta, eventstream.EventRunCompleted}
	check := func(evs []eventstream.Event, keep bool, reply string) (eventstream.ForkTried, eventstream.ForkEnded) {
		t.Helper()
		if got := types(evs); !reflect.DeepEqual(got, blockTypes) {
			t.Fatalf("events %v, want %v:%s", got, blockTypes, describe(evs))
		}
		run := runOf(evs[0])
		tried, ended := evs[1].Data.(eventstream.ForkTried), evs[6].Data.(eventstream.ForkEnded)
		if tried.Run != run || tried.Label != "a cheaper flight" || tried.Call == "" {
			t.Errorf("fork.tried = %+v, want the try of run %d", tried, run)
		}
		if ended.Run != run || ended.Call != tried.Call || ended.Fork != tried.Node || ended.Label != tried.Label || ended.Kept != keep {
			t.Errorf("fork.ended = %+v, want the end of %+v, kept %v", ended, tried, keep)
		}
		if call := evs[2].Data.(eventstream.ToolCall); call.Run != run || call.Tool != "cheaper" {
			t.Errorf("the block's tool.call = %+v, want it in run %d", call, run)
		}
		done := last(evs).Data.(eventstream.RunCompleted)
		if done.Run != run || done.Status != tree.OutcomeReplied || done.Text != reply {
			t.Errorf("run.completed = %+v, want run %d replied %q", done, run, reply)
		}
		return tried, ended
	}

	// Kept.
	oslo := c.try(t, "Oslo", true)
	_, kept := check(oslo, true, "Oslo on SK99")
	if kept.BackTo != 0 || kept.Tip != 0 {
		t.Errorf("a kept try's fork.ended = %+v, want no node gone back to", kept)
	}

	// Gone back from.
	rome := c.try(t, "Rome", false)
	tried, back := check(rome, false, "Rome as planned")
	if back.BackTo != runOf(rome[0]) {
		t.Errorf("fork.ended back_to %d, want %d, the message the block began after", back.BackTo, runOf(rome[0]))
	}
	if back.Tip <= tried.Node || back.Tip >= back.Node {
		t.Errorf("fork.ended tip %d, want the tried branch's last node, between %d and %d", back.Tip, tried.Node, back.Node)
	}

	// Recovered: no event for the move itself; the next run starts after
	// the tried branch's last node.
	c.recoverTry(t, tried.Node)
	faro := c.try(t, "Faro", true)
	if s := faro[0].Data.(eventstream.RunStarted); s.Parent != back.Tip {
		t.Errorf("the run after the recovery starts after %d, want the tried branch's tip %d:%s", s.Parent, back.Tip, describe(faro))
	}
	check(faro, true, "Faro on SK99")
	if s, before := rome[0].Data.(eventstream.RunStarted), last(oslo).Data.(eventstream.RunCompleted); s.Parent != before.Node {
		t.Errorf("run.started %+v, want it after the reply before, %d", s, before.Node)
	}

	// As read from the record, the stream is the one the client followed.
	// testdata/fork.golden holds it; -update rewrites it.
	whole := follow(t, c.svc, "me", c.conv, "")
	record := whole.take(len(c.f.seen))
	if !reflect.DeepEqual(record, c.f.seen) {
		t.Errorf("from the record:%s\nfollowed live:%s", describe(record), describe(c.f.seen))
	}
	file := filepath.Join("testdata", "fork.golden")
	got := wire(t, record)
	if *update {
		if err := os.WriteFile(file, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Errorf("%s: the events differ (go test ./internal/eventstream -run TryKept -update accepts them):\n%s", file, firstDifference(string(want), got))
	}
}

// From the id of any event of a conversation with tries, the one gone
// back from included, the stream goes on with exactly the events that
// followed it.
func TestResumingAcrossTriesMissesNothingAndRepeatsNothing(t *testing.T) {
	c := newTries(t)
	c.try(t, "Oslo", true)
	rome := c.try(t, "Rome", false)
	c.recoverTry(t, rome[1].Data.(eventstream.ForkTried).Node)
	c.try(t, "Faro", true)
	all := c.f.seen
	for i, e := range all[:len(all)-1] {
		rest := all[i+1:]
		r := follow(t, c.svc, "me", c.conv, e.ID)
		got := r.take(len(rest))
		r.es.Close()
		if !reflect.DeepEqual(got, rest) {
			t.Fatalf("after %s (%s) the stream sent:%s\nwant:%s", e.ID, e.Type, describe(got), describe(rest))
		}
	}
	noneTwice(t, all)
}

// A run stopped while its try waits on a question is stopped: its
// run.completed says so, as any stop's does, and no fork.ended comes.
func TestARunStoppedDuringATryIsStopped(t *testing.T) {
	c := newTries(t)
	send(t, c.svc, "me", c.conv, "Bergen")
	c.f.until("the question", is(eventstream.EventElicitAsked))
	if err := c.svc.Stop(t.Context(), "me", c.conv); err != nil {
		t.Fatal(err)
	}
	evs := c.f.until("the run's end", is(eventstream.EventRunCompleted))
	if done := last(evs).Data.(eventstream.RunCompleted); done.Status != tree.OutcomeStopped {
		t.Errorf("run.completed = %+v, want stopped", done)
	}
	if i := slicesIndex(c.f.seen, is(eventstream.EventForkEnded)); i >= 0 {
		t.Errorf("a fork.ended for a try nobody decided on:%s", describe(c.f.seen))
	}
}
