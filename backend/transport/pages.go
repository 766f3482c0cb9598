package transport

import (
	"bytes"
	"net/http"

	"github.com/a-h/templ"
	"github.com/labstack/echo/v4"

	"github.com/sweatpants-go/sweatpants/web/templates"
)

// render writes a component as a whole page. It renders into a buffer first
// so that a failing template becomes a clean 500, not half a page.
func render(c echo.Context, status int, comp templ.Component) error {
	var buf bytes.Buffer
	if err := comp.Render(c.Request().Context(), &buf); err != nil {
		return err
	}
	return c.HTMLBlob(status, buf.Bytes())
}

// home answers GET /: it opens the session's newest conversation, starting
// one if the session has none.
func (s *Server) home(c echo.Context) error {
	ctx := c.Request().Context()
	convs, err := s.chat.Conversations(ctx, sessionOf(c))
	if err != nil {
		return err
	}
	if len(convs) > 0 {
		return c.Redirect(http.StatusSeeOther, "/c/"+convs[0].ID)
	}
	conv, err := s.chat.Create(ctx, sessionOf(c), "")
	if err != nil {
		return err
	}
	return c.Redirect(http.StatusSeeOther, "/c/"+conv.ID)
}

// createConversation answers POST /c: a new conversation with the agent
// named by the form field "agent" (the default agent if absent).
func (s *Server) createConversation(c echo.Context) error {
	c.Request().Body = http.MaxBytesReader(c.Response(), c.Request().Body, s.maxBody)
	conv, err := s.chat.Create(c.Request().Context(), sessionOf(c), c.FormValue("agent"))
	if err != nil {
		return err
	}
	return c.Redirect(http.StatusSeeOther, "/c/"+conv.ID)
}

// conversationPage answers GET /c/:id: the conversation as it stands.
func (s *Server) conversationPage(c echo.Context) error {
	ctx := c.Request().Context()
	v, err := s.chat.View(ctx, sessionOf(c), c.Param("id"))
	if err != nil {
		return err
	}
	convs, err := s.chat.Conversations(ctx, sessionOf(c))
	if err != nil {
		return err
	}
	return render(c, http.StatusOK, templates.ChatPage(v, convs, s.chat.Agents()))
}
