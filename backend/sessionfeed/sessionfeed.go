// Package sessionfeed follows every conversation of a session at once. A
// chat.Follower follows one conversation, held in memory while it is
// followed; a reader of the record (the calls page, package calls) follows
// a whole session instead, and is only told which of its conversations
// recorded a node: it reads what they recorded from the store, so a
// conversation it follows is neither loaded nor resumed for it. The chat
// service tells the Hub what its conversations record and when a session
// is rotated.
package sessionfeed

import (
	"context"
	"slices"
	"sync"
	"sync/atomic"
)

// Hub is the followers of sessions. The zero value has none.
type Hub struct {
	open      atomic.Int32 // how many followers there are: none costs a record nothing
	mu        sync.Mutex
	followers map[*Follower]struct{}
}

// Follower follows the conversations of one session for one reader. Close
// it when the reader goes away.
type Follower struct {
	hub   *Hub
	ready chan struct{} // has a value when a conversation recorded since the last Take

	// Guarded by hub.mu.
	session  string          // follows a rotation of the session
	recorded map[string]bool // conversations that recorded since the last Take
}

// Update is what a follower was handed since it last took.
type Update struct {
	// Session is the session's id now: when the session is rotated, the
	// follower moves with its conversations.
	Session string
	// Recorded are the conversations of the session that recorded a node,
	// by id, in order.
	Recorded []string
}

// Follow starts following every conversation of session: the follower is
// woken when one of them records a node, from now on, and moves with the
// conversations when the session is rotated. It checks nothing: a session
// that owns nothing is followed as one whose conversations never record.
func (h *Hub) Follow(session string) *Follower {
	f := &Follower{hub: h, ready: make(chan struct{}, 1), session: session, recorded: map[string]bool{}}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.followers == nil {
		h.followers = map[*Follower]struct{}{}
	}
	h.followers[f] = struct{}{}
	h.open.Add(1)
	return f
}

// Watched reports whether anyone follows a session at all: when nobody
// does, a record need not even find out whose conversation it was.
func (h *Hub) Watched() bool { return h.open.Load() > 0 }

// Recorded tells the followers of session that its conversation recorded
// a node.
func (h *Hub) Recorded(session, conversation string) {
	if !h.Watched() {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	for f := range h.followers {
		if f.session != session {
			continue
		}
		f.recorded[conversation] = true
		select {
		case f.ready <- struct{}{}:
		default:
		}
	}
}

// Rotated has the followers of session prev follow its conversations to
// session next.
func (h *Hub) Rotated(prev, next string) {
	if !h.Watched() {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	for f := range h.followers {
		if f.session == prev {
			f.session = next
		}
	}
}

// Wait waits until a conversation of the session recorded a node since the
// last Take. It returns the context's error.
func (f *Follower) Wait(ctx context.Context) error {
	select {
	case <-f.ready:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Take returns what the follower was handed since it last took, without
// waiting: the session as it is now, and the conversations that recorded.
func (f *Follower) Take() Update {
	f.hub.mu.Lock()
	defer f.hub.mu.Unlock()
	u := Update{Session: f.session}
	for id := range f.recorded {
		u.Recorded = append(u.Recorded, id)
	}
	slices.Sort(u.Recorded)
	clear(f.recorded)
	return u
}

// Close ends the following.
func (f *Follower) Close() {
	h := f.hub
	h.mu.Lock()
	defer h.mu.Unlock()
	if _, ok := h.followers[f]; ok {
		delete(h.followers, f)
		h.open.Add(-1)
	}
}
