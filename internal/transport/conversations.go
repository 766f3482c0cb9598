package transport

import (
	"context"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/sweatpants-go/sweatpants/internal/apperr"
	"github.com/sweatpants-go/sweatpants/internal/tree"
	"github.com/sweatpants-go/sweatpants/internal/web/templates"
)

// Manager is what the transport needs of the chat service to manage a
// session's conversations. Errors are apperr errors; NotFound for a
// conversation the session does not own, as for one that does not exist.
type Manager interface {
	// Rename gives the conversation the title the user chose. Errors:
	// Invalid for an empty or overlong title, and then nothing changes;
	// NotFound.
	Rename(ctx context.Context, session, id, title string) error
	// Delete deletes the conversation with its tree and reflog. Errors:
	// NotFound.
	Delete(ctx context.Context, session, id string) error
	// Search lists the session's conversations whose title or messages
	// contain query, newest first; all of them for an empty query. Errors:
	// Invalid for an overlong query.
	Search(ctx context.Context, session, query string) ([]tree.Conversation, error)
}

// renameConversation answers POST /c/:id/rename, a form with "title": the
// conversation is renamed and the browser sent back to its page (303). A
// title refused (empty, too long) changes nothing: a browser gets the page
// again (400) with the rename form open, what was typed and why beside it;
// anyone else gets the message.
func (s *Server) renameConversation(c echo.Context) error {
	form, err := readForm(c.Request())
	if err != nil {
		return err
	}
	title := form.Get("title")
	err = s.chat.Rename(c.Request().Context(), sessionOf(c), c.Param("id"), title)
	if apperr.CodeOf(err) == apperr.Invalid && strings.Contains(c.Request().Header.Get("Accept"), "text/html") {
		return s.chatPage(c, status(err), templates.Shell{RenameText: title, RenameProblem: apperr.MessageOf(err)})
	}
	if err != nil {
		return err
	}
	return c.Redirect(http.StatusSeeOther, "/c/"+c.Param("id"))
}

// deleteConversation answers POST /c/:id/delete: the conversation goes,
// with its whole tree and reflog, and the browser is sent home (303), to
// its newest conversation left or a new one.
func (s *Server) deleteConversation(c echo.Context) error {
	if err := s.chat.Delete(c.Request().Context(), sessionOf(c), c.Param("id")); err != nil {
		return err
	}
	return c.Redirect(http.StatusSeeOther, "/")
}

// searchConversations answers GET /conversations?q=…&current=…, the
// sidebar's search as the user types: the list of the session's
// conversations that mention q, patched over the sidebar's list (an SSE
// answer, as Datastar takes it), current marked as the page's own.
func (s *Server) searchConversations(c echo.Context) error {
	q := c.QueryParam("q")
	convs, err := s.chat.Search(c.Request().Context(), sessionOf(c), q)
	if err != nil {
		return err
	}
	sse := newSSE(c)
	return patch(sse, templates.ConversationList(convs, c.QueryParam("current"), strings.TrimSpace(q)))
}
