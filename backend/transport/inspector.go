package transport

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/starfederation/datastar-go/datastar"

	"github.com/sweatpants-go/sweatpants/backend/apperr"
	"github.com/sweatpants-go/sweatpants/backend/chat"
	"github.com/sweatpants-go/sweatpants/web/templates"
)

// entryParam reads a reflog entry id from the query (?at=) or the path.
func entryParam(raw string) (int64, error) {
	if raw == "" {
		return 0, nil
	}
	id, err := strconv.ParseInt(raw, 10, 64)
	if err != nil || id <= 0 {
		return 0, apperr.Errorf(apperr.NotFound, "There is no reflog entry %q in this conversation.", raw)
	}
	return id, nil
}

// inspectorPage answers GET /c/:id/tree[?at=entry]: the tree inspector,
// showing HEAD or, read-only, the state of a reflog entry.
func (s *Server) inspectorPage(c echo.Context) error {
	at, err := entryParam(c.QueryParam("at"))
	if err != nil {
		return err
	}
	in, err := s.chat.Inspect(c.Request().Context(), sessionOf(c), c.Param("id"), at)
	if err != nil {
		return err
	}
	return render(c, http.StatusOK, templates.InspectorPage(in))
}

// inspectorStream answers GET /c/:id/tree/stream: the inspector re-rendered
// whenever the conversation changes.
func (s *Server) inspectorStream(c echo.Context) error {
	ctx := c.Request().Context()
	at, err := entryParam(c.QueryParam("at"))
	if err != nil {
		return err
	}
	sub, _, err := s.chat.Subscribe(ctx, sessionOf(c), c.Param("id"))
	if err != nil {
		return err
	}
	defer sub.Close()
	in, err := s.chat.Inspect(ctx, sessionOf(c), c.Param("id"), at)
	if err != nil {
		return err
	}
	c.Response().Header().Set("X-Accel-Buffering", "no")
	sse := newSSE(c)
	for {
		if err := patch(sse, templates.Inspector(in)); err != nil {
			return nil
		}
		rendered := time.Now()
		if !awaitTreeChange(ctx, sub, sse) {
			return nil
		}
		// The whole tree is drawn again on a change: while a turn moves
		// fast (a reply streaming in), draw it at most so often, with
		// every change up to then.
		select {
		case <-time.After(time.Until(rendered.Add(inspectorEvery))):
		case <-ctx.Done():
			return nil
		}
		if in, err = s.chat.Inspect(ctx, sessionOf(c), c.Param("id"), at); err != nil {
			s.log.Warn("inspect", "conversation", c.Param("id"), "err", err)
			return nil
		}
	}
}

// inspectorEvery is the shortest time between two drawings of the tree.
const inspectorEvery = 200 * time.Millisecond

// awaitTreeChange waits until the conversation changes in a way the tree
// shows, passing notices through meanwhile. It reports false when the
// stream is over.
func awaitTreeChange(ctx context.Context, sub *chat.Subscription, sse *datastar.ServerSentEventGenerator) bool {
	for {
		changes, resync, err := sub.Next(ctx)
		if err != nil {
			return false
		}
		changed := resync != nil
		for _, ch := range changes {
			if ch.Item != nil || ch.Status != nil || ch.Title != nil {
				changed = true
			} else if err := patch(sse, templates.Notice(ch.Notice)); err != nil {
				return false
			}
		}
		if changed {
			return true
		}
	}
}

// collect answers POST /c/:id/gc: branches no one can reach any more, older
// than the retention, are removed; the pages say how much went.
func (s *Server) collect(c echo.Context) error {
	got, err := s.chat.GC(c.Request().Context(), sessionOf(c), c.Param("id"))
	if err != nil {
		return s.refuse(c, err)
	}
	s.chat.Inform(sessionOf(c), c.Param("id"), fmt.Sprintf("Garbage collection removed %d nodes and %d reflog entries.", got.Nodes, got.Entries))
	return c.NoContent(http.StatusNoContent)
}

// recover answers POST /c/:id/reflog/:entry/recover: that entry's state is
// HEAD again (204).
func (s *Server) recover(c echo.Context) error {
	entry, err := entryParam(c.Param("entry"))
	if err == nil && entry == 0 {
		err = apperr.Errorf(apperr.NotFound, "There is no reflog entry %q in this conversation.", c.Param("entry"))
	}
	if err != nil {
		return s.refuse(c, err)
	}
	if err := s.chat.Recover(c.Request().Context(), sessionOf(c), c.Param("id"), entry); err != nil {
		return s.refuse(c, err)
	}
	s.chat.Notice(sessionOf(c), c.Param("id"), "")
	return c.NoContent(http.StatusNoContent)
}
