package inbound

import (
	"time"

	"github.com/sweatpants-go/sweatpants/elicit"
	"github.com/sweatpants-go/sweatpants/internal/apperr"
	"github.com/sweatpants-go/sweatpants/internal/lineend"
)

// MaxProgressBytes bounds one progress report (its stage, message and
// data together): progress says how the work goes, the result carries
// what it made.
const MaxProgressBytes = 4096

// MaxRecordedProgress is how many progress reports an answer records: past
// it, each report takes the place of the last one kept, so the record
// holds the first ones and the newest.
const MaxRecordedProgress = 32

// A question takes at most ProgressBurst progress reports within any
// ProgressWindow. A device reports a handful of stages in all; a flood
// would re-render the question on every open page for each report.
const (
	ProgressBurst  = 10
	ProgressWindow = time.Second
)

// CheckProgress checks a progress report an implementation sends on the
// question req and returns it as the conversation takes it (its message's
// line ends normalized). Errors: Invalid for a report too large or one the
// request does not take (elicit.Request.CheckProgress).
func CheckProgress(req elicit.Request, p elicit.Progress) (elicit.Progress, error) {
	if n := len(p.Stage) + len(p.Message) + len(p.Data); n > MaxProgressBytes {
		return p, apperr.Errorf(apperr.Invalid, "That progress report is %d bytes; a report is at most %d.", n, MaxProgressBytes)
	}
	if err := req.CheckProgress(p); err != nil {
		return p, apperr.Errorf(apperr.Invalid, "That progress report can't be taken: %s.", err)
	}
	p.Message = lineend.Normalize(p.Message)
	return p, nil
}

// Reported is the progress reported on one question, kept for its answer's
// record: the first MaxRecordedProgress-1 reports and the newest.
type Reported []elicit.Progress

// Heard keeps p.
func (r *Reported) Heard(p elicit.Progress) {
	if len(*r) == MaxRecordedProgress {
		(*r)[MaxRecordedProgress-1] = p
		return
	}
	*r = append(*r, p)
}

// ProgressLimit remembers when the last ProgressBurst reports on a question
// were taken.
type ProgressLimit struct {
	taken [ProgressBurst]time.Time // a ring, oldest at next
	next  int
}

// Allow reports whether a report arriving at now is within the limit
// (ProgressBurst in ProgressWindow), and counts it if so. Errors: TooMany.
func (r *ProgressLimit) Allow(now time.Time) error {
	if oldest := r.taken[r.next]; !oldest.IsZero() && now.Sub(oldest) < ProgressWindow {
		return apperr.Errorf(apperr.TooMany, "Too many progress reports for this question: it takes at most %d a second.", ProgressBurst)
	}
	r.taken[r.next] = now
	r.next = (r.next + 1) % ProgressBurst
	return nil
}
