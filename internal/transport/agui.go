package transport

import (
	"encoding/json"
	"errors"
	"net/http"

	"github.com/labstack/echo/v4"
	"github.com/starfederation/datastar-go/datastar"

	"github.com/sweatpants-go/sweatpants/internal/agui"
	"github.com/sweatpants-go/sweatpants/internal/apperr"
)

// aguiRun answers POST /agui: one AG-UI run (package agui), a
// RunAgentInput in and the run's events out as SSE, each one data line of
// JSON. The session rules are the page's: the session cookie, whose
// conversations are the threads it may run; a thread it does not own is a
// new conversation, which rotates the session as a new chat does (the
// answer's Set-Cookie carries it). The body is bounded as a command's
// (limitBody), a browser of another site is refused (refuseCrossOrigin),
// and the run's stream counts against the client's streams.
func (s *Server) aguiRun(c echo.Context) error {
	var in agui.Input
	if err := json.NewDecoder(c.Request().Body).Decode(&in); err != nil {
		var syn *json.SyntaxError
		var typ *json.UnmarshalTypeError
		if errors.As(err, &syn) || errors.As(err, &typ) {
			return apperr.Errorf(apperr.Invalid, "The body is not a RunAgentInput: %v.", err)
		}
		return badBody(err)
	}
	fresh := false
	if sessionOf(c) == "" && len(in.Resume) == 0 {
		// A client with no session yet can only start a thread: it is
		// given its session now, to count its stream against. One that
		// resumes owns no thread to resume, and is told so at once,
		// holding no stream and issued no session.
		if _, err := s.startSession(c); err != nil {
			return err
		}
		fresh = true
	}
	if sessionOf(c) != "" {
		release, err := s.acquireStream(c)
		if err != nil {
			return err
		}
		defer release()
	}
	newSession := func() (string, error) {
		if fresh {
			return sessionOf(c), nil
		}
		return s.startSession(c)
	}
	c.Response().Header().Set("X-Accel-Buffering", "no")
	c.Response().Writer = newStallWriter(c.Response().Writer, s.stall)
	// The cookie of a new session must go out with the headers, before
	// the first event; newSession is called before it is sent.
	var sse *datastar.ServerSentEventGenerator
	emit := func(ev agui.Event) error {
		if sse == nil {
			sse = newSSE(c)
		}
		b, err := json.Marshal(ev)
		if err != nil {
			return err
		}
		return sse.Send(datastar.EventType(ev.Type), []string{string(b)})
	}
	err := agui.Run(c.Request().Context(), s.chat, sessionOf(c), newSession, in, emit)
	if err != nil && sse == nil {
		return err
	}
	if err != nil {
		s.log.Warn("AG-UI run ended", "err", err)
	}
	if sse == nil {
		return c.NoContent(http.StatusNoContent)
	}
	return nil
}
