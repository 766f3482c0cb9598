package schedule

import (
	"context"
	"time"

	"github.com/sweatpants-go/sweatpants/internal/apperr"
)

// Dry is the schedules as a dry run of turns sees them (`sweatpants
// check`): a turn replayed finds what it scheduled, and what it would
// schedule anew is checked, but nothing is recorded or cancelled.
type Dry struct{ Store Store }

// Add returns the schedule of id if there is one, else the one r asks
// for, checked and not recorded.
func (d Dry) Add(ctx context.Context, conv, id string, r Request, now time.Time) (Schedule, error) {
	if sc, _, err := d.Store.ScheduleByID(ctx, id); err == nil && sc.Conversation == conv {
		return sc, nil
	}
	return r.first(id, conv, now)
}

// Unschedule cancels nothing: it says whether conv has the schedule id.
func (d Dry) Unschedule(ctx context.Context, conv, id string) error {
	sc, _, err := d.Store.ScheduleByID(ctx, id)
	if err == nil && sc.Conversation != conv {
		return apperr.Errorf(apperr.NotFound, "This conversation has no scheduled message %q.", id)
	}
	return err
}

// Of lists the conversation's schedules to come.
func (d Dry) Of(ctx context.Context, conv string) ([]Schedule, error) {
	return d.Store.SchedulesOf(ctx, conv)
}
