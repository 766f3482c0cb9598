package chat

import (
	"context"
	"errors"

	"github.com/sweatpants-go/sweatpants/internal/apperr"
)

// Leases shares conversations with the other nodes of a cluster on one
// database (package cluster): a conversation is live on one node at a
// time, the one that holds its lease. The service holds a conversation's
// lease for as long as the conversation is in its memory.
type Leases interface {
	// Hold takes conversation's lease, or keeps it, until release is
	// called; holds nest. It fails when another node holds it.
	Hold(ctx context.Context, conversation string) (release func(), err error)
}

// hold takes conversation id's lease for the conversation about to be
// loaded; without Leases, this process is the only one and needs none.
func (s *Service) hold(ctx context.Context, id string) (release func(), err error) {
	if s.leases == nil {
		return func() {}, nil
	}
	release, err = s.leases.Hold(ctx, id)
	if err != nil {
		if apperr.CodeOf(err) != apperr.Internal {
			return nil, err
		}
		s.log.Warn("conversation not taken", "conversation", id, "err", err)
		return nil, apperr.Errorf(apperr.Unavailable, "This conversation is being served by another node; try again in a moment.")
	}
	return release, nil
}

// forgetLocked takes c out of memory, and returns what gives its lease
// back, to call once s.mu is let go; s.mu is held.
func (s *Service) forgetLocked(c *conversation) (unlease func()) {
	delete(s.live, c.conv.ID)
	s.drops++
	unlease = c.unlease
	c.unlease = nil
	if unlease == nil {
		return func() {}
	}
	return unlease
}

// errMoved is what a conversation's turns are stopped with, and its
// followers told, when another node took it over.
var errMoved = apperr.Errorf(apperr.Unavailable, "This conversation moved to another node; reconnecting.")

// Moved lets go of conversation id, whose lease this node lost (package
// cluster): another node serves it now, from the record. An answer handed
// to its turn is written first, as on a shutdown (its sender waits on it);
// then its turns stop recording, as on a restart, and its followers are
// told (Follower.Next returns an error IsMoved knows), so that pages and
// streams end and reconnect to where it lives now. A conversation not in
// memory is nothing to let go of.
func (s *Service) Moved(id string) {
	s.mu.Lock()
	c := s.live[id]
	if c == nil {
		s.mu.Unlock()
		return
	}
	unlease := s.forgetLocked(c)
	s.mu.Unlock()
	unlease()
	c.lock() // writes a held answer
	defer c.mu.Unlock()
	if t := c.current; t != nil {
		t.cancel(errMoved)
		c.current = nil
	}
	for q, t := range c.sides {
		t.cancel(errMoved)
		delete(c.sides, q)
	}
	c.questions.dropLocked()
	c.inbox.Take()
	c.page.hub.GoneLocked(errMoved)
	s.log.Info("conversation moved to another node", "conversation", id)
}

// IsMoved reports whether err is a follower's news that its conversation
// moved to another node.
func IsMoved(err error) bool { return errors.Is(err, errMoved) }
