package chat

import (
	"context"
	"time"

	"github.com/sweatpants-go/sweatpants/middleware"
)

// GCRetention overrides Config.GCRetention for the collections run in a
// scope: a program (or a test) that wants one collection to keep less or
// more sets it on that collection's context.
var GCRetention = middleware.NewValue("gc-retention", DefaultGCRetention)

// Collected says what GC removed.
type Collected struct {
	Nodes, Entries int
}

// GC removes what can no longer be reached: reflog entries older than the
// retention (Config.GCRetention) expire, and then nodes older than the retention that are
// neither on HEAD's branch (with its side questions) nor on the branch of a
// remaining reflog entry are deleted. A running turn's branch is HEAD's, so
// it is never touched.
func (s *Service) GC(ctx context.Context, session, id string) (Collected, error) {
	var got Collected
	err := s.holding(ctx, session, id, func(c *conversation) error {
		reflog, err := s.store.Reflog(ctx, id) // before the lock: a turn may record meanwhile
		if err != nil {
			return err
		}
		retain := s.retention
		if r, ok := GCRetention.Lookup(ctx); ok {
			retain = r
		}
		now := s.now()
		cutoff := now.Add(-retain)
		if retain <= 0 {
			cutoff = now.Add(time.Hour)
		}
		c.lock()
		defer c.mu.Unlock()

		doomed, expired := c.idx.Garbage(c.path, reflog, cutoff)
		if len(doomed) == 0 && len(expired) == 0 {
			return nil
		}
		if err := s.store.Collect(ctx, id, doomed, expired); err != nil {
			return err
		}
		c.idx.Drop(doomed)
		c.page.hub.ResyncLocked()
		got = Collected{Nodes: len(doomed), Entries: len(expired)}
		return nil
	})
	return got, err
}
