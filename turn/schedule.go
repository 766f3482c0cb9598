package turn

import (
	"context"
	"errors"
	"time"

	"github.com/sweatpants-go/sweatpants/internal/primitive"
	"github.com/sweatpants-go/sweatpants/internal/schedule"
)

// Scheduled is a message a turn schedules to its own conversation
// (Schedule): sent at At, or, recurring, every Every or on Cron (a
// standard cron expression of five fields: minute hour day-of-month month
// day-of-week, read in UTC), until cancelled (Unschedule). A recurring
// schedule without At is first sent at its first occurrence from now.
type Scheduled struct {
	// ID names the schedule: Schedule's answer has it.
	ID      string
	Message string
	At      time.Time
	Every   time.Duration
	Cron    string
	// Next is when the message is sent next: Schedule's and Schedules'
	// answers have it.
	Next time.Time
}

// ErrNoSchedules is the error of Schedule, Unschedule and Schedules where
// the turn's runner keeps no schedules: outside a conversation, or a
// program that keeps no timers.
var ErrNoSchedules = errors.New("no schedules are kept where this turn runs")

// MaxSchedules is how many schedules a conversation may have at once.
const MaxSchedules = schedule.MaxActive

// Schedule has s.Message sent to the turn's conversation at its time, as
// if its user sent it (the page marks it scheduled), and so starts a turn
// of the conversation's agent then, on whichever node finds it due, once
// per occurrence even through a crash. A turn replayed after a restart
// schedules once: the schedule's id is drawn as Random draws, and the
// same id schedules nothing new. Errors: a message without words, both
// Every and Cron, a cron expression that is not one, an interval under a
// second, or a conversation with MaxSchedules schedules already.
func Schedule(ctx context.Context, s Scheduled) (Scheduled, error) {
	sch, conv := primitive.Schedules.Get(ctx), ConversationID(ctx)
	if sch == nil || conv == "" {
		return Scheduled{}, ErrNoSchedules
	}
	id := schedule.ID(Random(ctx))
	got, err := sch.Add(ctx, conv, id, schedule.Request{Message: s.Message, At: s.At, Every: s.Every, Cron: s.Cron}, Now(ctx))
	if err != nil {
		return Scheduled{}, err
	}
	return scheduled(got), nil
}

// Unschedule cancels the turn's conversation's schedule id: its message
// is sent no more. Cancelling one ended already does nothing; an id the
// conversation has not is an error.
func Unschedule(ctx context.Context, id string) error {
	sch, conv := primitive.Schedules.Get(ctx), ConversationID(ctx)
	if sch == nil || conv == "" {
		return ErrNoSchedules
	}
	return sch.Unschedule(ctx, conv, id)
}

// Schedules lists the turn's conversation's schedules still to be sent,
// the next first.
func Schedules(ctx context.Context) ([]Scheduled, error) {
	sch, conv := primitive.Schedules.Get(ctx), ConversationID(ctx)
	if sch == nil || conv == "" {
		return nil, ErrNoSchedules
	}
	list, err := sch.Of(ctx, conv)
	if err != nil {
		return nil, err
	}
	out := make([]Scheduled, len(list))
	for i, s := range list {
		out[i] = scheduled(s)
	}
	return out, nil
}

func scheduled(s schedule.Schedule) Scheduled {
	out := Scheduled{ID: s.ID, Message: s.Message, Every: s.Every, Cron: s.Cron, Next: s.Next}
	if s.Once() {
		out.At = s.Next
	}
	return out
}
