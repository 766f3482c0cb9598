package chat

import (
	"errors"
	"time"
)

// A turn that waits for answers while nobody watches (no open page, no
// request in flight) needs nothing but its record: its goroutine is ended
// and the conversation leaves memory. The next request that needs it loads
// it from the database, which resumes the turn by replay up to where it
// waited, exactly as after a restart. So conversations cost memory only
// while someone looks at them or they work.

// errSuspended is the cause of a turn's cancellation when it is suspended.
var errSuspended = errors.New("suspended while waiting for answers")

// DefaultSuspendAfter is how long a turn waits unwatched before it is
// suspended, unless Config.SuspendAfter says otherwise.
const DefaultSuspendAfter = time.Minute

// idle is called when c may have become idle: a turn started waiting, or a
// reference was dropped. It suspends c's turn now or after suspendAfter.
// A conversation has one suspension timer, pushed back by each call: a
// timer per call would keep one alive per question asked in the last
// suspendAfter, tens of thousands under load.
func (s *Service) idle(c *conversation) {
	switch d := s.suspendAfter; {
	case d < 0:
	case d == 0:
		s.suspend(c, 0)
	default:
		c.mu.Lock() // not lock(): a held answer may wait for its question
		if c.suspendTimer == nil {
			c.suspendTimer = time.AfterFunc(d, func() { s.suspend(c, d) })
		} else {
			c.suspendTimer.Reset(d)
		}
		c.mu.Unlock()
	}
}

// suspend ends c's turn and drops c from memory if the turn does nothing
// but wait for answers, nobody holds c, and nothing was recorded for quiet.
func (s *Service) suspend(c *conversation, quiet time.Duration) {
	c.lock()
	defer c.mu.Unlock()
	t := c.current
	if t == nil || c.questions.waitedOnLocked() == 0 || c.page.hub.WatchedLocked() || s.since(c.active) < quiet {
		return
	}
	s.mu.Lock()
	if c.refs != 1 || s.live[c.conv.ID] != c { // someone besides the turn holds it
		s.mu.Unlock()
		return
	}
	unlease := s.forgetLocked(c)
	s.mu.Unlock()
	defer unlease()
	// c is no one's now: its turn may not write again, and what it waited
	// on is waited on by the next load.
	c.current = nil
	c.questions.dropLocked()
	t.cancel(errSuspended)
	s.observe.Suspended(c.conv.ID)
	s.log.Debug("suspended a waiting turn", "conversation", c.conv.ID, "turn", t.id)
}

// Loaded reports how many conversations are in memory: those with an open
// page, a request in flight or a turn that works.
func (s *Service) Loaded() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.live)
}
