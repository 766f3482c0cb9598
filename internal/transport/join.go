package transport

import (
	"context"
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/sweatpants-go/sweatpants/internal/apperr"
	"github.com/sweatpants-go/sweatpants/internal/web/templates"
)

// Joining a session the program owns conversations in (those of MCP calls,
// made by no browser): GET /join asks for its key, POST /join checks it and
// hands the browser that session, so its pages show those conversations.

// Join says how a browser joins such a session.
type Join struct {
	// What the session holds, as the page names it: "the conversations of
	// MCP calls".
	What string
	// KeyLabel names the key asked for, "The MCP token"; "" when none is
	// asked (Session then takes any).
	KeyLabel string
	// Session returns the session for key, or an apperr Invalid error
	// saying why not (the key is wrong). The session must be pinned (store.PinSession), or the
	// browser's first new conversation would rotate it away.
	Session func(ctx context.Context, key string) (string, error)
}

// joinPage answers GET /join.
func (s *Server) joinPage(c echo.Context) error {
	return s.renderJoin(c, http.StatusOK, "")
}

func (s *Server) renderJoin(c echo.Context, status int, problem string) error {
	j := s.join
	return render(c, status, templates.JoinPage(templates.Join{What: j.What, NeedsKey: j.KeyLabel != "", KeyLabel: j.KeyLabel, Problem: problem}))
}

// joinSession answers POST /join, from the page's form: with the right key
// the browser's session cookie is the joined session's, and it is sent to
// its list (303); a wrong key is said in place (403) and changes nothing.
func (s *Server) joinSession(c echo.Context) error {
	id, err := s.join.Session(c.Request().Context(), c.FormValue("key"))
	switch {
	case apperr.CodeOf(err) == apperr.Invalid:
		return s.renderJoin(c, http.StatusForbidden, apperr.MessageOf(err))
	case err != nil:
		return err
	}
	s.setSessionCookie(c, id)
	return c.Redirect(http.StatusSeeOther, "/")
}
