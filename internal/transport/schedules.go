package transport

import (
	"context"

	"github.com/labstack/echo/v4"
	"github.com/starfederation/datastar-go/datastar"

	"github.com/sweatpants-go/sweatpants/internal/schedule"
	"github.com/sweatpants-go/sweatpants/internal/web/templates"
)

// Schedules are the conversations' scheduled messages (package schedule),
// which the page and the inspector list, each with a Cancel.
type Schedules interface {
	// Of lists the conversation's schedules to come, next first.
	Of(ctx context.Context, conv string) ([]schedule.Schedule, error)
	// Cancel ends the conversation's schedule id, if owner owns it;
	// NotFound otherwise.
	Cancel(ctx context.Context, owner, conv, id string) error
}

// scheduled lists the conversation's schedules for the page: nil when
// the program keeps none, or they cannot be read (the page goes on
// without them; the next drawing tries again). The caller has checked
// that the session owns conv.
func (s *Server) scheduled(ctx context.Context, conv string) []templates.ScheduledView {
	if s.schedules == nil {
		return nil
	}
	list, err := s.schedules.Of(ctx, conv)
	if err != nil {
		s.log.Warn("the conversation's schedules not read", "conversation", conv, "err", err)
		return nil
	}
	out := make([]templates.ScheduledView, len(list))
	for i, sc := range list {
		out[i] = templates.ScheduledView{ID: sc.ID, Message: sc.Message, Next: sc.Next, Recurrence: sc.Recurrence()}
	}
	return out
}

// patchSchedules draws the conversation's schedules on the page.
func (s *Server) patchSchedules(sse *datastar.ServerSentEventGenerator, conv string) error {
	return patch(sse, templates.Schedules(conv, s.scheduled(sse.Context(), conv)))
}

// cancelSchedule answers POST /c/:id/schedules/:sid/cancel: the
// conversation's scheduled message :sid is sent no more. The answer
// patches the page's list of schedules; 404 for a schedule the session's
// conversation has not, and nothing is changed.
func (s *Server) cancelSchedule(c echo.Context) error {
	conv := c.Param("id")
	if err := s.schedules.Cancel(c.Request().Context(), sessionOf(c), conv, c.Param("sid")); err != nil {
		return err
	}
	sse := datastar.NewSSE(c.Response(), c.Request())
	if err := s.patchSchedules(sse, conv); err != nil {
		s.log.Warn("the schedules not drawn after a cancel", "conversation", conv, "err", err)
	}
	return nil
}
