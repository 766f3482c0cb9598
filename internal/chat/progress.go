package chat

import (
	"context"

	"github.com/sweatpants-go/sweatpants/elicit"
	"github.com/sweatpants-go/sweatpants/internal/inbound"
)

// Progress hands progress an implementation reports on pending elicit eid
// to the agent that asked, if it listens, and shows it on the
// conversation's pages. It is recorded with the answer (elicit.Response's
// Progress, at most inbound.MaxRecordedProgress reports), not on its own:
// it changes no node until then. Errors: Invalid for a report the request
// does not take (inbound.CheckProgress); NotFound; Conflict when eid is
// not pending; TooMany past inbound.ProgressBurst reports on one question
// within inbound.ProgressWindow, in which case the report is dropped and
// nobody is told of it.
func (s *Service) Progress(ctx context.Context, session, id, eid string, p elicit.Progress) error {
	var (
		listen func(elicit.Request, elicit.Progress)
		req    elicit.Request
	)
	err := s.with(ctx, session, id, func(c *conversation) error {
		w := c.questions.waiterLocked(eid)
		if w == nil {
			return c.questions.notPendingLocked(eid)
		}
		var err error
		if p, err = inbound.CheckProgress(w.req, p); err != nil {
			return err
		}
		if err := w.reports.Allow(s.now()); err != nil {
			return err
		}
		w.stage = &p
		w.reported.Heard(p)
		c.questions.broadcastItemLocked(eid)
		listen, req = w.progress, c.questions.requestLocked(eid)
		return nil
	})
	if err == nil && listen != nil { // outside the lock: the agent's code may do anything
		listen(req, p)
	}
	return err
}
