// Package sessionfeed follows every conversation of a session at once. A
// feed.Follower follows one conversation, held in memory while it is
// followed; a reader of the record (the calls page, package calls) follows
// a whole session instead, and is only told which of its conversations
// recorded a node: it reads what they recorded from the store, so a
// conversation it follows is neither loaded nor resumed for it. The chat
// service tells the Hub what its conversations record and when a session
// is rotated.
package sessionfeed

import (
	"context"
	"maps"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// Hub is the followers of sessions. The zero value has none.
type Hub struct {
	open      atomic.Int32 // how many followers there are: none costs a record nothing
	relaying  atomic.Bool  // what is recorded is relayed to other nodes (Relay)
	mu        sync.Mutex
	followers map[string]map[*Follower]struct{} // by the session they follow now
	outbox    map[Recorded]struct{}             // to relay, coalesced
	wake      chan struct{}                     // has a value when outbox has
}

// Recorded is a conversation of a session that recorded a node.
type Recorded struct {
	Session      string `json:"s"`
	Conversation string `json:"c"`
}

// relayEvery is how long the records to relay gather before they are
// sent together: a reader shows a session's records at most every 200 ms
// (package calls), so a tenth of a second is not seen, and a busy node
// sends a few messages a second instead of one a record.
const relayEvery = 100 * time.Millisecond

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
	h.addLocked(f)
	h.open.Add(1)
	return f
}

// Watched reports whether anyone follows a session at all, here or on
// the nodes records are relayed to: when nobody does, a record need not
// even find out whose conversation it was.
func (h *Hub) Watched() bool { return h.open.Load() > 0 || h.relaying.Load() }

// Recorded tells the followers of session that its conversation recorded
// a node, and has it relayed to the other nodes when the hub relays.
func (h *Hub) Recorded(session, conversation string) {
	if !h.Watched() {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.relaying.Load() {
		h.outbox[Recorded{session, conversation}] = struct{}{}
		select {
		case h.wake <- struct{}{}:
		default:
		}
	}
	h.deliverLocked(session, conversation)
}

// Relayed tells the followers of session here that its conversation
// recorded a node on another node.
func (h *Hub) Relayed(session, conversation string) {
	if h.open.Load() == 0 {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	h.deliverLocked(session, conversation)
}

// Relay has what this node's conversations record sent to the other nodes
// of a cluster, whose hubs hand it to their followers (Relayed): send is
// called by a goroutine of its own, off the path that records, with the
// conversations that recorded in the last relayEvery, each once however
// many nodes it recorded. stop ends the relaying.
func (h *Hub) Relay(send func([]Recorded)) (stop func()) {
	h.mu.Lock()
	h.outbox, h.wake = map[Recorded]struct{}{}, make(chan struct{}, 1)
	wake := h.wake
	h.mu.Unlock()
	h.relaying.Store(true)
	done, finished := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(finished)
		for {
			select {
			case <-wake:
			case <-done:
				return
			}
			gather := time.NewTimer(relayEvery)
			select {
			case <-gather.C:
			case <-done:
				gather.Stop()
			}
			h.mu.Lock()
			out := slices.Collect(maps.Keys(h.outbox))
			h.outbox = map[Recorded]struct{}{}
			h.mu.Unlock()
			if len(out) > 0 {
				send(out)
			}
		}
	}()
	return func() {
		h.relaying.Store(false)
		close(done)
		<-finished
	}
}

// deliverLocked wakes the followers of session for conversation; h.mu is
// held.
func (h *Hub) deliverLocked(session, conversation string) {
	for f := range h.followers[session] {
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
	if !h.Watched() || prev == next {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	for f := range h.followers[prev] {
		h.removeLocked(f)
		f.session = next
		h.addLocked(f)
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
	if _, ok := h.followers[f.session][f]; ok {
		h.removeLocked(f)
		h.open.Add(-1)
	}
}

// Ready has a value when a conversation of the session recorded since the
// last Take: a reader that receives from it takes what was handed with
// Take. It lets a reader wait on the session beside something else (a
// conversation's page, which lists the session's conversations).
func (f *Follower) Ready() <-chan struct{} { return f.ready }

// addLocked adds f to the followers of its session; h.mu is held.
func (h *Hub) addLocked(f *Follower) {
	if h.followers == nil {
		h.followers = map[string]map[*Follower]struct{}{}
	}
	if h.followers[f.session] == nil {
		h.followers[f.session] = map[*Follower]struct{}{}
	}
	h.followers[f.session][f] = struct{}{}
}

// removeLocked removes f from the followers of its session; h.mu is held.
func (h *Hub) removeLocked(f *Follower) {
	delete(h.followers[f.session], f)
	if len(h.followers[f.session]) == 0 {
		delete(h.followers, f.session)
	}
}
