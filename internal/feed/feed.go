// Package feed is the one way to follow a conversation. The page, the event
// stream, the tree inspector, MCP and the terminal each hold a Follower; the
// conversation (package chat) keeps a Hub of them and hands every follower
// what it wants of each change (a change of what the page shows, a node
// recorded), waking it for the rest; a follower reads the live state it
// needs under the conversation's lock through Look. The read models
// (package eventstream, package inspector) are built on this and nothing
// else of the conversation.
//
// The feed knows the conversation only as a Source: a lock, the view a
// page starts from and what a reader may look at. Every method of Hub is
// called with that lock held, by the conversation.
package feed

import (
	"context"
	"sync"
	"time"

	"github.com/sweatpants-go/sweatpants/internal/pageview"
	"github.com/sweatpants-go/sweatpants/internal/tree"
)

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

// Source is the conversation a follower follows, as the feed sees it. The
// methods named Locked are called with the lock held.
type Source interface {
	sync.Locker
	// ViewLocked is the whole view a page starts from.
	ViewLocked() pageview.View
	// NoticeLocked is the notice the pages show.
	NoticeLocked() pageview.Notice
	// LookLocked is the conversation as it is now, all of Live but the
	// follower's own Nodes and Rescan.
	LookLocked() Live
	// Release is called, without the lock, when a follower closed.
	Release()
	// Reflog reads the conversation's reflog from the record, newest first.
	Reflog(ctx context.Context) ([]tree.RefEntry, error)
	// Retention is how long gc keeps what nothing reaches.
	Retention() time.Duration
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
	src   Source
	hub   *Hub
	want  Want
	ready chan struct{} // has a value when there is something to take

	changes []Change
	resync  bool
	nodes   []tree.Node
	rescan  bool
	gone    error // set when the conversation is no longer followed here
}

// Hub is the followers of one conversation. Its zero value is ready; the
// conversation's lock guards it.
type Hub struct {
	followers map[*Follower]struct{}
	// pages counts the followers that want the page's changes (Want.Page):
	// while there are none, nothing is built for them (Show).
	pages int
}

// FollowLocked registers a follower of src that is handed what w asks for
// from now on (and, with w.Nodes, recorded, the nodes after w.After), and
// returns it with the view it starts from (only the notice, unless
// w.Page): both under the lock, so that nothing is missed or handed twice.
func (h *Hub) FollowLocked(src Source, w Want, recorded []tree.Node) (*Follower, pageview.View) {
	f := &Follower{src: src, hub: h, want: w, ready: make(chan struct{}, 1)}
	if w.Nodes {
		f.nodes = recorded
		if len(f.nodes) > 0 {
			f.wakeLocked()
		}
	}
	if h.followers == nil {
		h.followers = map[*Follower]struct{}{}
	}
	h.followers[f] = struct{}{}
	if w.Page {
		h.pages++
	}
	return f, f.viewLocked()
}

// viewLocked is the view a follower starts from, or is resynced to.
func (f *Follower) viewLocked() pageview.View {
	if !f.want.Page {
		return pageview.View{Notice: f.src.NoticeLocked()}
	}
	return f.src.ViewLocked()
}

// Close ends the following.
func (f *Follower) Close() {
	f.src.Lock()
	_, ok := f.hub.followers[f]
	if ok && f.want.Page {
		f.hub.pages--
	}
	delete(f.hub.followers, f)
	f.src.Unlock()
	if ok {
		f.src.Release()
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

// Ready has a value when the follower was handed something: a reader that
// receives from it takes the changes with Take. It lets a reader wait on
// the follower beside something else (a page's list of conversations,
// which follows the whole session).
func (f *Follower) Ready() <-chan struct{} { return f.ready }

// Take takes the changes the follower was handed, once Ready had a value,
// as Next does.
func (f *Follower) Take() (Update, error) {
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
	f.src.Lock()
	defer f.src.Unlock()
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

// Look calls fn with the conversation as it is, under its lock: fn must be
// quick, must not keep what it is handed, and must not call the service.
// It takes the lock as it is, without writing a held answer first: a
// reader never costs a turn a commit of its own, and a held answer shows
// once it is written.
func (f *Follower) Look(fn func(Live)) {
	f.src.Lock()
	defer f.src.Unlock()
	l := f.src.LookLocked()
	l.Nodes, l.Rescan = f.nodes, f.rescan
	f.nodes, f.rescan = nil, false
	fn(l)
}

// Reflog reads the conversation's reflog from the record, newest first.
func (f *Follower) Reflog(ctx context.Context) ([]tree.RefEntry, error) {
	return f.src.Reflog(ctx)
}

// Retention is how long gc keeps what nothing reaches in this conversation.
func (f *Follower) Retention() time.Duration { return f.src.Retention() }

func (f *Follower) wakeLocked() {
	select {
	case f.ready <- struct{}{}:
	default:
	}
}

// RecordedLocked hands n, just recorded, to the followers that want nodes,
// and wakes the rest.
func (h *Hub) RecordedLocked(n tree.Node) {
	for f := range h.followers {
		if f.want.Nodes {
			if f.rescan {
				// reads the record when it catches up
			} else if len(f.nodes) >= maxQueuedNodes {
				f.nodes, f.rescan = nil, true
			} else {
				f.nodes = append(f.nodes, n)
			}
		}
		f.wakeLocked()
	}
}

// ResyncLocked has every follower draw the conversation again, for changes
// that remove what pages show.
func (h *Hub) ResyncLocked() {
	for f := range h.followers {
		f.resync, f.changes = true, nil
		f.wakeLocked()
	}
}

// BroadcastLocked hands ch to the followers that want it and wakes the
// rest. A status change replaces a status change still queued, so
// streaming text coalesces.
func (h *Hub) BroadcastLocked(ch Change) {
	for f := range h.followers {
		wants := f.want.Page || f.want.Notices && ch.Item == nil && ch.Status == nil && ch.Title == nil
		switch n := len(f.changes); {
		case f.resync || !wants:
			// only woken
		case ch.Status != nil && n > 0 && f.changes[n-1].Status != nil:
			f.changes[n-1] = ch
		case n >= maxQueued:
			f.resync, f.changes = true, nil
		default:
			f.changes = append(f.changes, ch)
		}
		f.wakeLocked()
	}
}

// ShowLocked hands the change that build makes, an item or a status, to
// the followers that want the page's changes and wakes the rest, as
// BroadcastLocked does; build returns false when there is nothing to show.
// build runs once for all followers, and not at all when none shows the
// page (a turn run for an MCP client, a page closed): the rest are only
// woken, and what nobody reads is never built.
func (h *Hub) ShowLocked(build func() (Change, bool)) {
	if h.pages == 0 {
		h.WakeAllLocked()
		return
	}
	if ch, ok := build(); ok {
		h.BroadcastLocked(ch)
	}
}

// WakeAllLocked wakes every follower, handing none anything.
func (h *Hub) WakeAllLocked() {
	for f := range h.followers {
		f.wakeLocked()
	}
}

// WatchedLocked reports whether a page, or another reader, follows.
func (h *Hub) WatchedLocked() bool { return len(h.followers) > 0 }

// GoneLocked tells every follower that the conversation is no longer
// followed here, and why: their Next returns err.
func (h *Hub) GoneLocked(err error) {
	for f := range h.followers {
		f.gone = err
		f.wakeLocked()
	}
}
