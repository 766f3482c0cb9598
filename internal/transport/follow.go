package transport

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/starfederation/datastar-go/datastar"
)

// Every stream (the page's, the event stream, the inspector's, the calls
// page's) is served by one loop, serveStream, from a source: a read model
// that says what to send next. What differs between streams is only what
// their sources read and how they draw it.

// event is one SSE event a source sends: a patch of a page, or a JSON
// event.
type event func(*datastar.ServerSentEventGenerator) error

// source is what one stream follows. Next waits for what to send next and
// returns it, in order (the first call answers at once with the whole of
// what the page shows); it errs when the client went away, the server shuts
// down, or what was followed is gone. Close lets it go.
type source interface {
	Next(ctx context.Context) ([]event, error)
	Close()
}

// serveStream serves one stream: it is counted against the stream limits,
// its source is opened while an error can still be answered with its
// status, and then every event the source gives is sent until the client
// goes away or the server shuts down. open may change the request's
// context, which events are rendered with.
func (s *Server) serveStream(c echo.Context, what string, open func(ctx context.Context) (source, error)) error {
	release, err := s.acquireStream(c)
	if err != nil {
		return err
	}
	defer release()
	src, err := open(c.Request().Context())
	if err != nil {
		return err // no SSE headers are out yet, so the status still counts
	}
	defer src.Close()
	c.Response().Header().Set("X-Accel-Buffering", "no")
	c.Response().Writer = newStallWriter(c.Response().Writer, s.stall)
	sse := newSSE(c)
	ctx := sse.Context()
	for {
		evs, err := src.Next(ctx)
		if err != nil {
			if ctx.Err() == nil && !errors.Is(err, context.Canceled) {
				s.log.Warn("stream ended", "stream", what, "path", c.Request().URL.Path, "err", err)
			}
			return nil
		}
		for _, ev := range evs {
			if err := ev(sse); err != nil {
				return nil // the client went away
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
