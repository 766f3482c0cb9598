package transport

import (
	"bytes"
	"net/http"
	"strconv"
	"time"

	"github.com/a-h/templ"
	"github.com/labstack/echo/v4"
	"github.com/starfederation/datastar-go/datastar"

	"github.com/sweatpants-go/sweatpants/backend/chat"
	"github.com/sweatpants-go/sweatpants/backend/lineend"
	"github.com/sweatpants-go/sweatpants/backend/markdown"
	"github.com/sweatpants-go/sweatpants/web/templates"
)

// stream answers GET /c/:id/stream: the page's one SSE stream. It starts
// with the whole conversation re-rendered (so a reconnect, even to a
// restarted server, shows the current state) and then carries each change.
func (s *Server) stream(c echo.Context) error {
	r := c.Request()
	ctx := r.Context()
	conv := c.Param("id")
	release, err := s.acquireStream(c)
	if err != nil {
		return err
	}
	defer release()
	sub, view, err := s.chat.Subscribe(ctx, sessionOf(c), conv)
	if err != nil {
		return err // no SSE headers are out yet, so the status still counts
	}
	defer sub.Close()
	// The stream shows a reply growing, draft after draft: they are rendered
	// through one markdown.Drafts, which renders anew only what changed.
	c.SetRequest(r.WithContext(markdown.WithDrafts(ctx)))
	w := c.Response()
	w.Header().Set("X-Accel-Buffering", "no")
	sse := newSSE(c)
	if err := s.patchFull(sse, view); err != nil {
		return nil
	}
	for {
		u, err := sub.Next(ctx)
		if err != nil {
			return nil // the client went away or the server is shutting down
		}
		if u.Resync != nil {
			if err := s.patchFull(sse, *u.Resync); err != nil {
				return nil
			}
			continue
		}
		for _, ch := range u.Changes {
			if err := s.patchChange(sse, conv, ch); err != nil {
				return nil
			}
		}
	}
}

// newSSE starts an SSE response. Datastar writes the status line through the
// underlying writer, so echo is told the response is committed; otherwise
// its first Write would send a second status line. A stream outlives the
// server's read timeout, which is for reading requests: it is lifted here.
func newSSE(c echo.Context) *datastar.ServerSentEventGenerator {
	http.NewResponseController(c.Response()).SetReadDeadline(time.Time{})
	sse := datastar.NewSSE(c.Response(), c.Request())
	c.Response().Committed = true
	return sse
}

func (s *Server) patchFull(sse *datastar.ServerSentEventGenerator, v chat.View) error {
	if err := patch(sse, templates.Chat(v), datastar.WithPatchElementsEventID(strconv.FormatInt(0, 10))); err != nil {
		return err
	}
	// The title is outside the chat's part of the page, and may have
	// changed with what made the page re-render (an edit of the first
	// message, a switch of versions).
	return patch(sse, templates.Title(v.Conversation))
}

func (s *Server) patchChange(sse *datastar.ServerSentEventGenerator, conv string, ch chat.Change) error {
	id := datastar.WithPatchElementsEventID(strconv.FormatInt(ch.Seq, 10))
	switch {
	case ch.Item != nil && ch.New:
		return patch(sse, templates.Item(conv, ch.Item), id, datastar.WithSelectorID("messages"), datastar.WithModeAppend())
	case ch.Item != nil:
		return patch(sse, templates.Item(conv, ch.Item), id)
	case ch.Status != nil:
		return patch(sse, templates.Status(conv, *ch.Status), id)
	case ch.Title != nil:
		return patch(sse, templates.Title(*ch.Title), id)
	default:
		return patch(sse, templates.Notice(ch.Notice), id)
	}
}

// patch renders comp and sends it as one datastar-patch-elements event,
// with its line ends as the SDK splits them (see lineends.go).
func patch(sse *datastar.ServerSentEventGenerator, comp templ.Component, opts ...datastar.PatchElementOption) error {
	var buf bytes.Buffer
	if err := comp.Render(sse.Context(), &buf); err != nil {
		return err
	}
	return sse.PatchElements(lineend.Normalize(buf.String()), opts...)
}
