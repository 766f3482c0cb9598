package chat

import (
	"context"
	"time"

	"github.com/sweatpants-go/sweatpants/elicit"
	"github.com/sweatpants-go/sweatpants/internal/apperr"
	"github.com/sweatpants-go/sweatpants/internal/lineend"
)

// Progress hands progress an implementation reports on pending elicit eid
// to the agent that asked, if it listens, and shows it on the
// conversation's pages. It is recorded with the answer (elicit.Response's
// Progress, at most MaxRecordedProgress reports), not on its own: it
// changes no node until then. Errors: Invalid for a report the request
// does not take (elicit.Request.CheckProgress: no stage, or data that
// breaks the request's progress schema); NotFound; Conflict when eid is
// not pending; TooMany past ProgressBurst reports on one question within
// ProgressWindow, in which case the report is dropped and nobody is told
// of it.
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
		if n := len(p.Stage) + len(p.Message) + len(p.Data); n > MaxProgressBytes {
			return apperr.Errorf(apperr.Invalid, "That progress report is %d bytes; a report is at most %d.", n, MaxProgressBytes)
		}
		if err := w.req.CheckProgress(p); err != nil {
			return apperr.Errorf(apperr.Invalid, "That progress report can't be taken: %s.", err)
		}
		if !w.reports.allow(s.now()) {
			return apperr.Errorf(apperr.TooMany, "Too many progress reports for this question: it takes at most %d a second.", ProgressBurst)
		}
		p.Message = lineend.Normalize(p.Message)
		w.stage = &p
		w.heard(p)
		c.questions.broadcastItemLocked(eid)
		listen, req = w.progress, c.questions.requestLocked(eid)
		return nil
	})
	if err == nil && listen != nil { // outside the lock: the agent's code may do anything
		listen(req, p)
	}
	return err
}

// MaxProgressBytes bounds one progress report (its stage, message and
// data together): progress says how the work goes, the result carries
// what it made.
const MaxProgressBytes = 4096

// MaxRecordedProgress is how many progress reports an answer records: past
// it, each report takes the place of the last one kept, so the record
// holds the first ones and the newest.
const MaxRecordedProgress = 32

// heard keeps p for the answer's record.
func (w *waiter) heard(p elicit.Progress) {
	if len(w.reported) == MaxRecordedProgress {
		w.reported[MaxRecordedProgress-1] = p
		return
	}
	w.reported = append(w.reported, p)
}

// A question takes at most ProgressBurst progress reports within any
// ProgressWindow. A device reports a handful of stages in all; a flood
// would re-render the question on every open page for each report.
const (
	ProgressBurst  = 10
	ProgressWindow = time.Second
)

// progressLimit remembers when the last ProgressBurst reports on a question
// were taken.
type progressLimit struct {
	taken [ProgressBurst]time.Time // a ring, oldest at next
	next  int
}

// allow reports whether a report arriving at now is within the limit, and
// counts it if so.
func (r *progressLimit) allow(now time.Time) bool {
	if oldest := r.taken[r.next]; !oldest.IsZero() && now.Sub(oldest) < ProgressWindow {
		return false
	}
	r.taken[r.next] = now
	r.next = (r.next + 1) % ProgressBurst
	return true
}
