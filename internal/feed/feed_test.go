package feed

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/sweatpants-go/sweatpants/internal/pageview"
	"github.com/sweatpants-go/sweatpants/internal/tree"
)

// conv is a conversation as the feed sees it, with a view that counts
// the items shown.
type conv struct {
	sync.Mutex
	hub      Hub
	items    int
	notice   pageview.Notice
	released int
}

func (c *conv) ViewLocked() pageview.View {
	return pageview.View{Items: make([]pageview.Item, c.items), Notice: c.notice}
}
func (c *conv) NoticeLocked() pageview.Notice                   { return c.notice }
func (c *conv) LookLocked() Live                                { return Live{Turn: TurnRunning} }
func (c *conv) Release()                                        { c.released++ }
func (c *conv) Reflog(context.Context) ([]tree.RefEntry, error) { return nil, nil }
func (c *conv) Retention() time.Duration                        { return time.Hour }

func (c *conv) follow(w Want, recorded ...tree.Node) *Follower {
	c.Lock()
	defer c.Unlock()
	f, _ := c.hub.FollowLocked(c, w, recorded)
	return f
}

func (c *conv) do(fn func(h *Hub)) {
	c.Lock()
	defer c.Unlock()
	fn(&c.hub)
}

func next(t *testing.T, f *Follower) Update {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	u, err := f.Next(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// A reader that falls behind the page is handed the whole view once, not
// an unbounded queue; streaming status coalesces into the newest.
func TestAFollowerThatFallsBehindIsResynced(t *testing.T) {
	c := &conv{}
	f := c.follow(Want{Page: true})
	c.do(func(h *Hub) {
		for i := range 3 {
			st := pageview.Status{Draft: string(rune('a' + i))}
			h.ShowLocked(func() (Change, bool) { return Change{Status: &st}, true })
		}
	})
	if u := next(t, f); len(u.Changes) != 1 || u.Changes[0].Status.Draft != "c" {
		t.Fatalf("three statuses in a row: handed %+v, want the newest alone", u.Changes)
	}
	c.do(func(h *Hub) {
		c.items = maxQueued + 1
		for range maxQueued + 1 {
			h.BroadcastLocked(Change{Item: &pageview.Item{}, New: true})
		}
	})
	u := next(t, f)
	if u.Resync == nil || len(u.Resync.Items) != maxQueued+1 || len(u.Changes) != 0 {
		t.Fatalf("after %d changes unread: resync %v, %d changes; want the whole view", maxQueued+1, u.Resync != nil, len(u.Changes))
	}
}

// A reader of notices is handed notices only, and only woken by the rest;
// when nobody shows the page, what only a page would show is never built.
func TestNoticesOnlyAndNothingBuiltForNoPage(t *testing.T) {
	c := &conv{}
	f := c.follow(Want{Notices: true})
	built := false
	c.do(func(h *Hub) {
		h.ShowLocked(func() (Change, bool) { built = true; return Change{Item: &pageview.Item{}}, true })
		h.BroadcastLocked(Change{Notice: pageview.Notice{Text: "Saved.", Info: true}})
	})
	if built {
		t.Fatal("a change was built with no page following")
	}
	if u := next(t, f); len(u.Changes) != 1 || u.Changes[0].Notice.Text != "Saved." {
		t.Fatalf("handed %+v, want the notice alone", u.Changes)
	}
	f.Close()
	f.Close()
	if c.released != 1 {
		t.Fatalf("released %d times after two Closes, want once", c.released)
	}
}

// Nodes are handed in order with Look; a reader that lets too many pile up
// is told to read the record instead (Rescan), and a gone conversation
// ends Next with its reason.
func TestNodesQueueBoundedAndGone(t *testing.T) {
	c := &conv{}
	f := c.follow(Want{Nodes: true}, tree.Node{ID: 1})
	c.do(func(h *Hub) { h.RecordedLocked(tree.Node{ID: 2}) })
	var got []int64
	f.Look(func(l Live) {
		for _, n := range l.Nodes {
			got = append(got, n.ID)
		}
	})
	if len(got) != 2 || got[0] != 1 || got[1] != 2 {
		t.Fatalf("nodes %v, want [1 2]", got)
	}
	c.do(func(h *Hub) {
		for i := range maxQueuedNodes + 1 {
			h.RecordedLocked(tree.Node{ID: int64(3 + i)})
		}
	})
	f.Look(func(l Live) {
		if !l.Rescan || len(l.Nodes) != 0 {
			t.Fatalf("after %d nodes unread: rescan %v with %d nodes", maxQueuedNodes+1, l.Rescan, len(l.Nodes))
		}
	})
	moved := context.Canceled
	c.do(func(h *Hub) { h.GoneLocked(moved) })
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if _, err := f.Next(ctx); err != moved {
		t.Fatalf("Next after the conversation went: %v, want %v", err, moved)
	}
}
