package chat

import (
	"context"
	"slices"
	"sync"
	"sync/atomic"
)

// The session feed: following every conversation of a session at once.
// A Follower follows one conversation, held in memory while it is
// followed; a reader of the record (the calls page, package calls) follows
// a whole session instead, and is only told which of its conversations
// recorded a node: it reads what they recorded from the store, so a
// conversation it follows is neither loaded nor resumed for it.

// SessionFollower follows the conversations of one session for one reader.
// Close it when the reader goes away.
type SessionFollower struct {
	feeds *sessionFeeds
	ready chan struct{} // has a value when a conversation recorded since the last Take

	// Guarded by feeds.mu.
	session  string          // follows a rotation of the session
	recorded map[string]bool // conversations that recorded since the last Take
}

// SessionUpdate is what a session follower was handed since it last took.
type SessionUpdate struct {
	// Session is the session's id now: when the session is rotated
	// (Service.RotateSession), the follower moves with its conversations.
	Session string
	// Recorded are the conversations of the session that recorded a node,
	// by id, in order.
	Recorded []string
}

// sessionFeeds are the service's session followers. The zero value has
// none.
type sessionFeeds struct {
	open      atomic.Int32 // how many followers there are: none costs a record nothing
	mu        sync.Mutex
	followers map[*SessionFollower]struct{}
}

// FollowSession starts following every conversation of session: the
// follower is woken when one of them records a node, from now on, and
// moves with the conversations when the session is rotated. It checks
// nothing: a session that owns nothing is followed as one whose
// conversations never record.
func (s *Service) FollowSession(session string) *SessionFollower {
	f := &SessionFollower{feeds: &s.sessions, ready: make(chan struct{}, 1), session: session, recorded: map[string]bool{}}
	fs := &s.sessions
	fs.mu.Lock()
	defer fs.mu.Unlock()
	if fs.followers == nil {
		fs.followers = map[*SessionFollower]struct{}{}
	}
	fs.followers[f] = struct{}{}
	fs.open.Add(1)
	return f
}

// Wait waits until a conversation of the session recorded a node since the
// last Take. It returns the context's error.
func (f *SessionFollower) Wait(ctx context.Context) error {
	select {
	case <-f.ready:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Take returns what the follower was handed since it last took, without
// waiting: the session as it is now, and the conversations that recorded.
func (f *SessionFollower) Take() SessionUpdate {
	f.feeds.mu.Lock()
	defer f.feeds.mu.Unlock()
	u := SessionUpdate{Session: f.session}
	for id := range f.recorded {
		u.Recorded = append(u.Recorded, id)
	}
	slices.Sort(u.Recorded)
	clear(f.recorded)
	return u
}

// Close ends the following.
func (f *SessionFollower) Close() {
	fs := f.feeds
	fs.mu.Lock()
	defer fs.mu.Unlock()
	if _, ok := fs.followers[f]; ok {
		delete(fs.followers, f)
		fs.open.Add(-1)
	}
}

// sessionRecordedLocked tells the followers of c's session that c recorded
// a node; c.mu is held.
func (c *conversation) sessionRecordedLocked() {
	fs := &c.svc.sessions
	if fs.open.Load() == 0 {
		return
	}
	c.svc.mu.Lock()
	owner := c.owner
	c.svc.mu.Unlock()
	fs.mu.Lock()
	defer fs.mu.Unlock()
	for f := range fs.followers {
		if f.session != owner {
			continue
		}
		f.recorded[c.conv.ID] = true
		select {
		case f.ready <- struct{}{}:
		default:
		}
	}
}

// sessionRotatedLocked has the followers of session prev follow its
// conversations to session next; s.mu is held.
func (s *Service) sessionRotatedLocked(prev, next string) {
	fs := &s.sessions
	if fs.open.Load() == 0 {
		return
	}
	fs.mu.Lock()
	defer fs.mu.Unlock()
	for f := range fs.followers {
		if f.session == prev {
			f.session = next
		}
	}
}
