package chat

import (
	"context"
	"maps"
	"slices"
	"time"

	"github.com/sweatpants-go/sweatpants/internal/pageview"
	"github.com/sweatpants-go/sweatpants/internal/tree"
)

// The feed: the one way to follow a conversation. The page, the event
// stream, the tree inspector and the terminal each hold a Follower; the
// conversation hands every follower what it wants of each change (a change
// of what the page shows, a node recorded) and wakes it for the rest, and a
// follower reads the live state it needs under the conversation's lock
// through Look. The read models (package eventstream, package inspector)
// are built on this and nothing else of the conversation; the calls page
// (package calls), which reads the record, follows a whole session through
// Sessions (package sessionfeed).

// Change is one thing that changed on a conversation's page: an Item, the
// Status, the conversation's Title, or else the Notice (which may be empty,
// to clear it).
type Change struct {
	Item   *pageview.Item // an item to show; New when it is appended, else it replaces the shown one
	New    bool
	Status *pageview.Status
	Title  *tree.Conversation
	Notice pageview.Notice
}

// Want says what a follower is handed; any other change only wakes it.
type Want struct {
	// Page: every Change, in order. A follower that falls behind is handed
	// the whole View again instead (Update.Resync), so a slow reader may
	// miss intermediate states but never the final one.
	Page bool
	// Notices: only the changes of the notice, for a reader that draws the
	// rest itself; a resync hands it a View that holds only the notice.
	Notices bool
	// Nodes: every node recorded, in id order, from the first one after
	// node After (0: from the first node of all), taken with Look (in
	// Live.Nodes), so that they are read with the state they led to.
	Nodes bool
	After int64
}

// Update is what a follower was handed since it last looked.
type Update struct {
	Changes []Change
	// Resync, when set, replaces Changes: what was shown is to be redrawn
	// from this view (something shown was removed, or the follower fell
	// behind). Followers that want no page changes get it too, as a sign
	// that the conversation moved in a way that is no growth.
	Resync *pageview.View
}

// maxQueued bounds the page changes queued for a follower; past it, it
// gets one full re-render instead.
const maxQueued = 256

// maxQueuedNodes bounds the nodes queued for a follower that does not read;
// past it, they are dropped and it reads the record when it catches up.
const maxQueuedNodes = 4096

// Follower follows one conversation for one reader. Close it when the
// reader goes away.
type Follower struct {
	conv  *conversation
	want  Want
	ready chan struct{} // has a value when there is something to take

	changes []Change
	resync  bool
	nodes   []tree.Node
	rescan  bool
	gone    error // set when the conversation moved to another node (lease.go)
}

// Follow starts following a conversation the session owns, handing the
// follower what w asks for from now on (and, with w.Nodes, the recorded
// nodes after w.After first). Errors: NotFound.
func (s *Service) Follow(ctx context.Context, session, id string, w Want) (*Follower, error) {
	f, _, err := s.follow(ctx, session, id, w)
	return f, err
}

// Subscribe follows a conversation for an open page: the view it starts
// from, and then every change of it (Want.Page). Errors: NotFound.
func (s *Service) Subscribe(ctx context.Context, session, id string) (*Follower, pageview.View, error) {
	return s.follow(ctx, session, id, Want{Page: true})
}

// follow registers a follower and returns it with the view it starts from
// (only the notice, unless w.Page), both under the conversation's lock, so
// that nothing is missed or handed twice.
func (s *Service) follow(ctx context.Context, session, id string, w Want) (*Follower, pageview.View, error) {
	c, err := s.acquire(ctx, session, id)
	if err != nil {
		return nil, pageview.View{}, err
	}
	f := &Follower{conv: c, want: w, ready: make(chan struct{}, 1)}
	if w.Page {
		c.lock() // a held answer is written first, so the page shows it
	} else {
		c.mu.Lock() // an open reader never costs a turn a commit of its own
	}
	defer c.mu.Unlock()
	if w.Nodes {
		f.nodes = c.idx.After(w.After)
		if len(f.nodes) > 0 {
			f.wakeLocked()
		}
	}
	c.page.followLocked(f)
	return f, f.viewLocked(), nil
}

// viewLocked is the view a follower starts from, or is resynced to; c.mu
// is held.
func (f *Follower) viewLocked() pageview.View {
	if !f.want.Page {
		return pageview.View{Notice: f.conv.page.notice}
	}
	return f.conv.page.view()
}

// Close ends the following.
func (f *Follower) Close() {
	c := f.conv
	c.mu.Lock()
	ok := c.page.unfollowLocked(f)
	c.mu.Unlock()
	if ok {
		c.svc.release(c)
	}
}

// Next waits until something changed and returns the changes the follower
// was handed; an Update with nothing in it means only that something it did
// not ask for changed (a node was recorded, a reply streams on: see Look).
func (f *Follower) Next(ctx context.Context) (Update, error) {
	select {
	case <-f.ready:
	case <-ctx.Done():
		return Update{}, ctx.Err()
	}
	u, gone := f.take()
	if gone != nil {
		return Update{}, gone
	}
	return u, nil
}

// Pending returns the changes the follower was handed and not yet taken,
// without waiting: an Update with nothing in it when there are none. A
// reader that is done following takes them so that nothing it was handed
// goes unseen.
func (f *Follower) Pending() Update {
	select {
	case <-f.ready:
	default:
		return Update{}
	}
	u, _ := f.take()
	return u
}

// take takes the changes the follower was handed, and says why it
// follows nothing any more (nil while it does), under one taking of the
// lock: a reader woken while a turn still holds it waits for it once.
func (f *Follower) take() (Update, error) {
	c := f.conv
	c.mu.Lock()
	defer c.mu.Unlock()
	var u Update
	if f.resync {
		v := f.viewLocked()
		u.Resync = &v
	} else {
		u.Changes = f.changes
	}
	f.changes, f.resync = nil, false
	return u, f.gone
}

// Live is a conversation as it is now, for a reader to look at under the
// conversation's lock: nothing in it may be kept after Look returns.
type Live struct {
	Conversation tree.Conversation
	Index        *tree.Index // every node of every branch
	Path         tree.Path   // root to HEAD
	Turn         TurnState
	// Reply is the flow's reply as it streams, if one does; Asides are
	// the side questions' replies streaming, in the order they were asked.
	Reply  Draft
	Asides []Draft
	Notice pageview.Notice
	// Nodes are the nodes recorded since the follower last looked, in id
	// order (Want.Nodes); Rescan says it fell so far behind that they were
	// dropped: read them from Index.
	Nodes  []tree.Node
	Rescan bool
}

// Draft is a reply as it streams: the run it answers (the node of its
// message or side question) and its text so far.
type Draft struct {
	Run  int64
	Text string
}

// TurnState is what the conversation's turn does, as the inspector's legend
// says it.
type TurnState string

const (
	TurnIdle    TurnState = ""
	TurnRunning TurnState = "running"
	TurnWaiting TurnState = "waiting" // for the user to answer
)

// Look calls fn with the conversation as it is, under its lock: fn must be
// quick, must not keep what it is handed, and must not call the service.
// It takes the lock as it is, without writing a held answer first: a
// reader never costs a turn a commit of its own, and a held answer shows
// once it is written.
func (f *Follower) Look(fn func(Live)) {
	c := f.conv
	c.mu.Lock()
	defer c.mu.Unlock()
	l := Live{Conversation: c.conv, Index: c.idx, Path: c.path, Turn: c.page.turnStateLocked(), Notice: c.page.notice,
		Nodes: f.nodes, Rescan: f.rescan}
	f.nodes, f.rescan = nil, false
	if t := c.current; t != nil && c.page.draftLocked() != "" {
		l.Reply = Draft{Run: t.id, Text: c.page.draftLocked()}
	}
	for _, id := range slices.Sorted(maps.Keys(c.sides)) {
		if d := c.sides[id].draftLocked(); d != "" {
			l.Asides = append(l.Asides, Draft{Run: id, Text: d})
		}
	}
	fn(l)
}

// Reflog reads the conversation's reflog from the record, newest first.
func (f *Follower) Reflog(ctx context.Context) ([]tree.RefEntry, error) {
	return f.conv.svc.store.Reflog(ctx, f.conv.conv.ID)
}

// Retention is how long gc keeps what nothing reaches in this conversation.
func (f *Follower) Retention() time.Duration { return f.conv.svc.retention }

func (f *Follower) wakeLocked() {
	select {
	case f.ready <- struct{}{}:
	default:
	}
}
