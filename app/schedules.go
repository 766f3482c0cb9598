package app

import (
	"context"
	"log/slog"
	"sync/atomic"

	"github.com/sweatpants-go/sweatpants/internal/chat"
	"github.com/sweatpants-go/sweatpants/internal/inbound"
	"github.com/sweatpants-go/sweatpants/internal/primitive"
	"github.com/sweatpants-go/sweatpants/internal/schedule"
	"github.com/sweatpants-go/sweatpants/internal/store"
)

// scheduling wires scheduled messages (package schedule) into a chat
// service: its clock fires their timers (clocked, which chat.New calls
// before the clock starts), and every turn finds them (scope), for
// turn.Schedule.
type scheduling struct {
	db  *store.DB
	log *slog.Logger
	svc atomic.Pointer[schedule.Service]
	// dry has a turn find the schedules read-only where no chat service
	// runs: the dry run of `sweatpants check`.
	dry bool
}

// clocked makes the schedules' service of the chat service svc.
func (sc *scheduling) clocked(svc *chat.Service) {
	if svc.Timers() == nil {
		return
	}
	send := func(ctx context.Context, owner, conv, id, text string) error {
		_, err := svc.SendMessage(ctx, owner, conv, inbound.Message{ID: id, Text: text, Limit: schedule.MaxMessageLen})
		return err
	}
	sc.svc.Store(schedule.New(sc.db, svc.Timers(), send, svc.Now, sc.log))
}

// scope gives a turn the schedules: the service's where a chat service
// runs, and in a dry run of `sweatpants check` (dry) what is recorded,
// read-only (schedule.Dry).
func (sc *scheduling) scope(ctx context.Context) context.Context {
	if s := sc.svc.Load(); s != nil {
		return primitive.Schedules.With(ctx, s)
	}
	if sc.dry {
		return primitive.Schedules.With(ctx, schedule.Dry{Store: sc.db})
	}
	return ctx
}

// service is the schedules' service, nil before chat.New or where the
// store keeps no timers.
func (sc *scheduling) service() *schedule.Service { return sc.svc.Load() }
