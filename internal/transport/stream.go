package transport

import (
	"bytes"
	"context"

	"github.com/a-h/templ"
	"github.com/labstack/echo/v4"
	"github.com/starfederation/datastar-go/datastar"

	"github.com/sweatpants-go/sweatpants/internal/feed"
	"github.com/sweatpants-go/sweatpants/internal/lineend"
	"github.com/sweatpants-go/sweatpants/internal/markdown"
	"github.com/sweatpants-go/sweatpants/internal/pageview"
	"github.com/sweatpants-go/sweatpants/internal/web/templates"
)

// stream answers GET /c/:id/stream: the page's one SSE stream. It starts
// with the whole conversation re-rendered (so a reconnect, even to a
// restarted server, shows the current state) and then carries each change.
func (s *Server) stream(c echo.Context) error {
	conv := c.Param("id")
	return s.serveStream(c, "page", func(ctx context.Context) (source, error) {
		sub, view, err := s.chat.Subscribe(ctx, sessionOf(c), conv)
		if err != nil {
			return nil, err
		}
		// The stream shows a reply growing, draft after draft: they are
		// rendered through one markdown.Drafts, which renders anew only
		// what changed.
		c.SetRequest(c.Request().WithContext(markdown.WithDrafts(ctx)))
		list, err := s.newLiveList(ctx, sessionOf(c))
		if err != nil {
			sub.Close()
			return nil, err
		}
		return &pageSource{s: s, conv: conv, sub: sub, first: &view, list: list}, nil
	})
}

// pageSource draws a conversation's page: whole first, then change by
// change, and whole again when the page fell behind or lost something.
type pageSource struct {
	s     *Server
	conv  string
	sub   *feed.Follower
	first *pageview.View // drawn whole by the first Next
	list  *liveList      // nil: the list is drawn with the page only
}

func (p *pageSource) Close() {
	p.sub.Close()
	if p.list != nil {
		p.list.f.Close()
	}
}

func (p *pageSource) Next(ctx context.Context) ([]event, error) {
	if v := p.first; v != nil {
		p.first = nil
		return p.full(*v), nil
	}
	u, listed, err := p.next(ctx)
	if err != nil {
		return nil, err
	}
	var evs []event
	if listed {
		if evs, err = p.listEvents(ctx); err != nil {
			return nil, err
		}
	}
	if u.Resync != nil {
		return append(evs, p.full(*u.Resync)...), nil
	}
	for _, ch := range u.Changes {
		evs = append(evs, func(sse *datastar.ServerSentEventGenerator) error { return p.s.patchChange(sse, p.conv, ch) })
	}
	return evs, nil
}

func (p *pageSource) full(v pageview.View) []event {
	return []event{func(sse *datastar.ServerSentEventGenerator) error { return p.s.patchFull(sse, v) }}
}

// patchFull sends the whole page. The page's patches carry no event id:
// every connection starts over with the whole page, so there is nothing a
// reconnecting browser could resume from.
func (s *Server) patchFull(sse *datastar.ServerSentEventGenerator, v pageview.View) error {
	if err := patch(sse, templates.Chat(v)); err != nil {
		return err
	}
	if err := s.patchSchedules(sse, v.Conversation.ID); err != nil {
		return err
	}
	// The title is outside the chat's part of the page, and may have
	// changed with what made the page re-render (an edit of the first
	// message, a switch of versions).
	return patch(sse, templates.Title(v.Conversation))
}

func (s *Server) patchChange(sse *datastar.ServerSentEventGenerator, conv string, ch feed.Change) error {
	switch {
	case ch.Item != nil && ch.New:
		return patch(sse, templates.Item(conv, ch.Item), datastar.WithSelectorID("messages"), datastar.WithModeAppend())
	case ch.Item != nil:
		return patch(sse, templates.Item(conv, ch.Item))
	case ch.Status != nil:
		// A turn that ended may have scheduled or cancelled a message, or
		// have been sent by a schedule, whose next time moved: the list is
		// drawn again then (not at each status: a read per page per turn).
		if !ch.Status.Running {
			if err := s.patchSchedules(sse, conv); err != nil {
				return err
			}
		}
		return patch(sse, templates.Status(conv, *ch.Status))
	case ch.Title != nil:
		return patch(sse, templates.Title(*ch.Title))
	default:
		return patch(sse, templates.Notice(ch.Notice))
	}
}

// patchIn is the event that patches comp in (see patch).
func patchIn(comp templ.Component, opts ...datastar.PatchElementOption) event {
	return func(sse *datastar.ServerSentEventGenerator) error { return patch(sse, comp, opts...) }
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
