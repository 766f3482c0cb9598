package chat

import "github.com/sweatpants-go/sweatpants/backend/sessionfeed"

// FollowSession starts following every conversation of session (package
// sessionfeed): the follower is woken when one of them records a node,
// and moves with the conversations when the session is rotated.
func (s *Service) FollowSession(session string) *sessionfeed.Follower {
	return s.sessions.Follow(session)
}

// Sessions is the hub of the session followers (package sessionfeed):
// a program relays it to the other nodes of a cluster.
func (s *Service) Sessions() *sessionfeed.Hub { return &s.sessions }

// sessionRecordedLocked tells the followers of c's session that c recorded
// a node; c.mu is held.
func (c *conversation) sessionRecordedLocked() {
	if !c.svc.sessions.Watched() {
		return
	}
	c.svc.mu.Lock()
	owner := c.owner
	c.svc.mu.Unlock()
	c.svc.sessions.Recorded(owner, c.conv.ID)
}
