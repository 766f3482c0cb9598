package schedule

import (
	"context"
	"log/slog"
	"strings"
	"time"

	"github.com/sweatpants-go/sweatpants/internal/apperr"
	"github.com/sweatpants-go/sweatpants/internal/timers"
)

// Store keeps schedules and their timers: the database (package store).
type Store interface {
	// AddSchedule records s with a timer of its next occurrence, in one
	// transaction, unless a schedule of s.ID is recorded already, which
	// it returns instead (a replayed turn's). It fills in s.Owner from the
	// conversation. Errors: NotFound for no such conversation, Conflict
	// when the conversation has limit schedules already.
	AddSchedule(ctx context.Context, s Schedule, limit int) (Schedule, error)
	// ScheduleByID returns the schedule of id, cancelled or ended ones
	// too (done is then true); NotFound for none.
	ScheduleByID(ctx context.Context, id string) (s Schedule, done bool, err error)
	// SchedulesOf lists the conversation's active schedules, next first.
	SchedulesOf(ctx context.Context, conversation string) ([]Schedule, error)
	// CancelSchedule ends the conversation's schedule id, owned by owner
	// ("" for any owner), and drops its timer; ending one ended already
	// does nothing. NotFound when the conversation has no schedule id.
	CancelSchedule(ctx context.Context, owner, conversation, id string) error
	// MoveSchedule records the next occurrence of schedule id (the
	// timer moves with what the clock is told), or, for the zero time,
	// ends it.
	MoveSchedule(ctx context.Context, id string, next time.Time) error
}

// Sender sends the conversation conv the message text of id as its owner
// would: the chat service's SendMessage, where a message of an id sent
// before is not recorded again.
type Sender func(ctx context.Context, owner, conv, id, text string) error

// Service keeps the schedules of conversations and sends their messages.
type Service struct {
	store Store
	clock *timers.Clock
	send  Sender
	now   func() time.Time
	log   *slog.Logger
}

// New makes the service of the schedules in st, sending through send and
// firing on clock, with which it registers as the handler of Kind; log
// hears of sends that failed (nil for none).
func New(st Store, clock *timers.Clock, send Sender, now func() time.Time, log *slog.Logger) *Service {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	s := &Service{store: st, clock: clock, send: send, now: now, log: log}
	clock.Handle(Kind, s.Fire)
	return s
}

// Add schedules r in the conversation conv under id (ID), made at now
// (the turn's recorded time). A schedule of id made before is returned as
// it was, whatever r says: the same turn replayed.
func (s *Service) Add(ctx context.Context, conv, id string, r Request, now time.Time) (Schedule, error) {
	if conv == "" {
		return Schedule{}, apperr.Errorf(apperr.Invalid, "Only a conversation's turn may schedule a message to it.")
	}
	first, err := r.first(id, conv, now)
	if err != nil {
		return Schedule{}, err
	}
	sc, err := s.store.AddSchedule(ctx, first, MaxActive)
	if err != nil {
		return Schedule{}, err
	}
	s.clock.Poke()
	return sc, nil
}

// Cancel ends the schedule id of conversation conv for owner, a user who
// must own it. NotFound when owner's conversation conv has no schedule id.
func (s *Service) Cancel(ctx context.Context, owner, conv, id string) error {
	if owner == "" {
		return apperr.Errorf(apperr.NotFound, "This conversation has no scheduled message %q.", id)
	}
	return s.store.CancelSchedule(ctx, owner, conv, id)
}

// Unschedule ends the schedule id of conversation conv for a turn of conv,
// whose conversation it is (turn.Unschedule). NotFound when conv has no
// schedule id.
func (s *Service) Unschedule(ctx context.Context, conv, id string) error {
	if conv == "" {
		return apperr.Errorf(apperr.Invalid, "Only a conversation's turn may cancel its scheduled messages.")
	}
	return s.store.CancelSchedule(ctx, "", conv, id)
}

// Of lists the conversation's active schedules, next first.
func (s *Service) Of(ctx context.Context, conv string) ([]Schedule, error) {
	return s.store.SchedulesOf(ctx, conv)
}

// RetryEvery is how soon an occurrence whose send failed (the
// conversation held by a node that died, until its lease lapses; the
// database away) is tried again.
const RetryEvery = 2 * time.Second

// Fire sends the occurrence of the schedule of timer t (a timers.Firer)
// and says when the next one is; the zero time ends a schedule sent once,
// or one cancelled meanwhile. The occurrence is the schedule's Next, which
// moves only once it is sent: a node that sends it and dies before moving
// it leaves it to another, whose send of the same message id is known and
// not recorded again; a send that fails is tried again at RetryEvery, the
// same occurrence.
func (s *Service) Fire(ctx context.Context, t timers.Timer) (time.Time, error) {
	_, id, _ := strings.Cut(t.Key, ":")
	sc, done, err := s.store.ScheduleByID(ctx, id)
	if apperr.CodeOf(err) == apperr.NotFound || (err == nil && (done || sc.Conversation != t.Conversation)) {
		return time.Time{}, nil // cancelled, or its conversation deleted
	}
	if err != nil {
		return time.Time{}, err
	}
	now := s.now()
	if now.Before(sc.Next) {
		return sc.Next, nil // another node's clock ran ahead of this one's
	}
	if err := s.send(ctx, t.Owner, t.Conversation, MessageID(id, sc.Next), sc.Message); err != nil {
		if apperr.CodeOf(err) == apperr.NotFound || ctx.Err() != nil {
			return time.Time{}, err // the conversation is gone, or the node stops
		}
		s.log.Warn("a scheduled message not sent; it is tried again", "conversation", t.Conversation, "schedule", id, "err", err)
		return now.Add(RetryEvery), nil
	}
	next, err := sc.after(sc.Next, now)
	if err != nil {
		return time.Time{}, err
	}
	if err := s.store.MoveSchedule(context.WithoutCancel(ctx), id, next); err != nil {
		return time.Time{}, err
	}
	return next, nil
}
