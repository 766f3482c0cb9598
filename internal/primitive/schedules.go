package primitive

import (
	"context"
	"time"

	"github.com/sweatpants-go/sweatpants/internal/schedule"
	"github.com/sweatpants-go/sweatpants/middleware"
)

// Scheduler keeps the schedules of conversations (package schedule), for
// a turn's turn.Schedule, Unschedule and Schedules.
type Scheduler interface {
	Add(ctx context.Context, conv, id string, r schedule.Request, now time.Time) (schedule.Schedule, error)
	Unschedule(ctx context.Context, conv, id string) error
	Of(ctx context.Context, conv string) ([]schedule.Schedule, error)
}

// Schedules is the program's Scheduler, installed in the scope of every
// turn where the store keeps timers; nil elsewhere.
var Schedules = middleware.NewValue[Scheduler]("schedules", nil)
