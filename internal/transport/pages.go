package transport

import (
	"bytes"
	"context"
	"net/http"

	"github.com/a-h/templ"
	"github.com/labstack/echo/v4"

	"github.com/sweatpants-go/sweatpants/agents"
	"github.com/sweatpants-go/sweatpants/internal/apperr"
	"github.com/sweatpants-go/sweatpants/internal/inbound"
	"github.com/sweatpants-go/sweatpants/internal/web/templates"
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

// home answers GET /: the session's newest conversation, or, for a session
// with none (a first visit, or any request without a cookie), the page of a
// conversation not started yet. Nothing is written.
func (s *Server) home(c echo.Context) error {
	if _, ok := accountOf(c); !ok && s.signin.Required && s.signin.OIDC != nil {
		return c.Redirect(http.StatusSeeOther, "/signin")
	}
	convs, err := s.chat.Conversations(c.Request().Context(), sessionOf(c))
	if err != nil {
		return err
	}
	if len(convs) > 0 {
		return c.Redirect(http.StatusSeeOther, "/c/"+convs[0].ID)
	}
	return s.newChat(c, http.StatusOK, templates.NewChat{})
}

// newConversationPage answers GET /new?agent=name: the page of a new
// conversation with that agent (the default agent if absent), recorded only
// when its first message is sent.
func (s *Server) newConversationPage(c echo.Context) error {
	return s.newChat(c, http.StatusOK, templates.NewChat{Agent: c.QueryParam("agent")})
}

// newChat renders the page of a conversation not started yet, with status,
// beside the session's conversations.
func (s *Server) newChat(c echo.Context, status int, n templates.NewChat) error {
	a, err := s.chat.Assistant(n.Agent)
	if err != nil {
		return err
	}
	convs, err := s.chat.Conversations(c.Request().Context(), sessionOf(c))
	if err != nil {
		return err
	}
	n.Agent, n.Model, n.Starters = a.Name, s.chat.ModelName(), a.Starters
	n.Sessionless = sessionOf(c) == ""
	return render(c, status, templates.NewChatPage(n, templates.Shell{Conversations: convs, Agents: listed(s.chat.Assistants())}))
}

// createConversation answers POST /c, a form with "agent" (the default agent
// if empty), "message" and "attachments", the ids of files uploaded (POST
// /files), comma-separated: the conversation is recorded, its first message
// sent with those files, and the browser sent to its page (303). The
// browser's session id is rotated first (startSession), its files moving
// with it. A message that cannot be sent (no words nor files, too long,
// files that are not the session's or too large together, checked as
// sendMessage checks them) shows the page again, with what was typed, the
// files that can stay and why, and records nothing; a body that cannot be
// read, or an unknown agent, is refused. A conversation whose first message
// then fails is deleted with what it holds: none is left without it.
func (s *Server) createConversation(c echo.Context) error {
	form, err := readForm(c.Request())
	if err != nil {
		return err
	}
	n := templates.NewChat{Agent: form.Get("agent"), Text: form.Get("message")}
	ctx := c.Request().Context()
	if _, err := s.chat.Assistant(n.Agent); err != nil {
		return err
	}
	_, hasMessage := form["message"]
	atts, err := s.attachments(ctx, sessionOf(c), form.Get("attachments"))
	if err == nil && hasMessage {
		_, err = inbound.Message{Text: n.Text, Attachments: atts}.Checked()
	}
	if err != nil {
		if apperr.CodeOf(err) == apperr.Internal {
			return err
		}
		n.Problem, n.Files = apperr.MessageOf(err), s.ownFiles(ctx, sessionOf(c), form.Get("attachments"))
		return s.newChat(c, status(err), n)
	}
	session, err := s.startSession(c)
	if err != nil {
		return err
	}
	conv, err := s.chat.Create(ctx, session, n.Agent)
	if err != nil {
		return err
	}
	if hasMessage {
		err = s.attach(ctx, session, conv.ID, atts)
		if err == nil {
			_, err = s.chat.SendMessage(ctx, session, conv.ID, inbound.Message{Text: n.Text, Attachments: atts})
		}
		if err != nil {
			if derr := s.chat.Delete(context.WithoutCancel(ctx), session, conv.ID); derr != nil {
				s.log.Error("delete a conversation whose first message failed", "conversation", conv.ID, "err", derr)
			}
			return err
		}
	}
	return c.Redirect(http.StatusSeeOther, "/c/"+conv.ID)
}

// conversationPage answers GET /c/:id: the conversation as it stands.
func (s *Server) conversationPage(c echo.Context) error {
	return s.chatPage(c, http.StatusOK, templates.Shell{})
}

// chatPage renders conversation :id's page with status, in sh (its
// conversations and agents filled in here).
func (s *Server) chatPage(c echo.Context, status int, sh templates.Shell) error {
	ctx := c.Request().Context()
	v, err := s.chat.View(ctx, sessionOf(c), c.Param("id"))
	if err != nil {
		return err
	}
	if sh.Conversations, err = s.chat.Conversations(ctx, sessionOf(c)); err != nil {
		return err
	}
	sh.Agents = listed(s.chat.Assistants())
	return render(c, status, templates.ChatPage(v, sh))
}

// listed are the assistants a user may choose on the pages: all but the
// unlisted ones, which bindings start conversations with themselves.
func listed(all []agents.Assistant) []agents.Assistant {
	out := make([]agents.Assistant, 0, len(all))
	for _, a := range all {
		if !a.Unlisted {
			out = append(out, a)
		}
	}
	return out
}
