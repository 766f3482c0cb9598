package transport

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"
	"github.com/starfederation/datastar-go/datastar"
	"github.com/sweatpants-go/sweatpants/elicit"
	"github.com/sweatpants-go/sweatpants/internal/apperr"
	"github.com/sweatpants-go/sweatpants/internal/chat"
	"github.com/sweatpants-go/sweatpants/internal/inbound"
	"github.com/sweatpants-go/sweatpants/internal/tree"
)

// command is the middleware of the commands on a conversation, the POST
// routes under /c/:id/: it says on the conversation's open pages how the
// command went, so that no handler has to.
//
// A command refused shows why, in place of the request that failed, with
// two exceptions: problems with fields of a form are shown on the form,
// each beside its field, and a request refused for coming too often
// (TooMany) says nothing, so that a flood of them is not a flood of notices
// to every page. A command that went through clears the notice an earlier
// command left, unless its handler left it (leaveNotice); a refusal of a
// command that ran beside it stays.
func (s *Server) command(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		began := s.chat.Now() // the clock the notices are stamped by
		err := next(c)
		// Once the answer has started, the command has gone through: an
		// error now is a browser that went away while it was answered.
		if err != nil && !c.Response().Committed {
			if shownOnPages(err) {
				_, msg, _ := answer(err, c.Request())
				s.chat.Notice(sessionOf(c), c.Param("id"), msg)
			}
			return err
		}
		if left, _ := c.Get(noticeLeft).(bool); !left {
			// A refusal of a command that ran beside this one stays.
			s.chat.ClearNotice(sessionOf(c), c.Param("id"), began)
		}
		return err
	}
}

// shownOnPages reports whether a command's refusal is shown on the
// conversation's pages (see command).
func shownOnPages(err error) bool {
	if e, ok := errors.AsType[*apperr.Error](err); ok && e.Fields != nil {
		return false // the form shows each problem beside its field
	}
	return apperr.CodeOf(err) != apperr.TooMany
}

// noticeLeft is the key of the mark leaveNotice sets on a request.
const noticeLeft = "notice-left"

// leaveNotice marks a command that, when it goes through, leaves the
// conversation's notice as it is instead of clearing it (see command): it
// set one of its own, or it is not something the user did.
func leaveNotice(c echo.Context) { c.Set(noticeLeft, true) }

// limitBody is the middleware that bounds a request's body to the server's
// MaxBody; reading past it fails with an *http.MaxBytesError (see badBody).
func (s *Server) limitBody(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		c.Request().Body = http.MaxBytesReader(c.Response(), c.Request().Body, s.maxBody)
		return next(c)
	}
}

// sendMessage answers POST /c/:id/messages with Datastar signals
// {"message": "...", "messageId": "..."}: it records the message and
// starts a turn. The id, which the page chooses and may leave out, makes a
// resend of the message (after a lost response) answered as the first send
// was, recording nothing again; the same id with other words is 409, an id
// that is not one (tree.MaxMessageIDLen letters, digits, '-' or '_') 400.
// On success a page's request (one Datastar made) is answered with a patch
// that clears the sender's composer, unless typed in since, and its id; the message itself reaches
// every open page through the stream. Any other client, a script, gets a
// plain answer: 204 when the message started a turn, else 200 with JSON
// {"sent", "say"} saying what it did instead (inbound.Sent and its Say).
func (s *Server) sendMessage(c echo.Context) error {
	var in struct {
		Message     *string `json:"message"`
		ID          string  `json:"messageId"`
		Attachments string  `json:"attachments"` // the ids of files uploaded (POST /files), comma-separated
	}
	if err := datastar.ReadSignals(c.Request(), &in); err != nil {
		return badBody(err)
	}
	if in.Message == nil {
		return apperr.Errorf(apperr.Invalid, `The request has no "message".`)
	}
	ctx, session, conv := c.Request().Context(), sessionOf(c), c.Param("id")
	atts, err := s.attachments(ctx, session, in.Attachments)
	if err != nil {
		return err
	}
	if err := s.attach(ctx, session, conv, atts); err != nil {
		return err
	}
	sent, err := s.chat.SendMessage(ctx, session, conv, inbound.Message{ID: in.ID, Text: *in.Message, Attachments: atts})
	if err != nil {
		return err
	}
	if sent.Say() != "" {
		// What the message did, when it did more than start a turn, the
		// service said on the pages, until the reply it speaks of arrives.
		leaveNotice(c)
	}
	if !fromDatastar(c.Request()) {
		if sent.Say() == "" {
			return c.NoContent(http.StatusNoContent)
		}
		return c.JSON(http.StatusOK, sentAnswer{Sent: string(sent), Say: sent.Say()})
	}
	// The composer is emptied only if it still holds the words sent (the
	// page's effect on _sent, templates.Composer): what the user began to
	// type once the reply came, before this answer did, stays.
	sse := newSSE(c)
	return sse.MarshalAndPatchSignals(map[string]string{"_sent": *in.Message, "messageId": "", "attachments": ""})
}

// sentAnswer is what sendMessage tells a script about a message that did
// more than start a turn: what it did (inbound.Sent) and the words a page shows.
type sentAnswer struct {
	Sent string `json:"sent"`
	Say  string `json:"say"`
}

// answerElicit answers POST /c/:id/elicits/:eid: the user's response to a
// pending elicit, either as an HTML form (the action in "_action", the
// fields as named by the schema) or as JSON {"action", "content", "text"}.
// It answers 204 when recorded, 422 when the content breaks the schema (the
// form then shows what to fix), 409 when the elicit was already answered.
func (s *Server) answerElicit(c echo.Context) error {
	a, err := readAnswer(c.Request())
	if err != nil {
		return err
	}
	if err := s.chat.Answer(c.Request().Context(), sessionOf(c), c.Param("id"), c.Param("eid"), a); err != nil {
		return err
	}
	return c.NoContent(http.StatusNoContent)
}

// stopTurn answers POST /c/:id/stop: it halts the running turn (204), or
// 409 when nothing runs.
func (s *Server) stopTurn(c echo.Context) error {
	if err := s.chat.Stop(c.Request().Context(), sessionOf(c), c.Param("id")); err != nil {
		return err
	}
	return c.NoContent(http.StatusNoContent)
}

// nodeParam reads the :node parameter; a malformed one names no node.
func nodeParam(c echo.Context) (int64, error) {
	id, err := strconv.ParseInt(c.Param("node"), 10, 64)
	if err != nil || id <= 0 {
		return 0, apperr.Errorf(apperr.NotFound, "There is no message or answer %q in this conversation.", c.Param("node"))
	}
	return id, nil
}

// editMessage answers POST /c/:id/messages/:node/edit with the form fields
// "message" and "attachments", the ids of the files the new version is
// sent with (POST /files), comma-separated ("" for none; without the field
// the message's own, as a script that edits the words alone means): the
// edited message is sent on a new branch beside the old one, which keeps
// its own files. The files are checked as sendMessage checks them. The response
// closes the page's edit form.
func (s *Server) editMessage(c echo.Context) error {
	node, text, err := nodeMessage(c)
	if err != nil {
		return err
	}
	ctx, session, conv := c.Request().Context(), sessionOf(c), c.Param("id")
	var atts []tree.Attachment
	if ids, ok := c.Request().PostForm["attachments"]; ok {
		if atts, err = s.attachments(ctx, session, strings.Join(ids, ",")); err != nil {
			return err
		}
	} else if atts, err = s.messageFiles(ctx, session, conv, node); err != nil {
		return err // a script that edits the words alone keeps the files
	}
	if err := s.attach(ctx, session, conv, atts); err != nil {
		return err
	}
	if err := s.chat.Edit(ctx, session, conv, node, inbound.Message{Text: text, Attachments: atts}); err != nil {
		return err
	}
	return newSSE(c).MarshalAndPatchSignals(map[string]any{"_editing": 0})
}

// messageFiles are the files of message node of HEAD's branch, as the
// conversation's page shows them; none when it is not there.
func (s *Server) messageFiles(ctx context.Context, session, conv string, node int64) ([]tree.Attachment, error) {
	v, err := s.chat.View(ctx, session, conv)
	if err != nil {
		return nil, err
	}
	for _, it := range v.Items {
		if it.ID == node {
			return it.Attachments, nil
		}
	}
	return nil, nil
}

// nodeMessage reads what a command on a node of the conversation sends:
// the node from the path and the form field "message".
func nodeMessage(c echo.Context) (int64, string, error) {
	node, err := nodeParam(c)
	if err != nil {
		return 0, "", err
	}
	text, err := formValue(c, "message")
	return node, text, err
}

// askAside answers POST /c/:id/nodes/:node/aside with the form field
// "message": it is asked in the side thread beside that node, which the
// model answers there while the conversation stays where it is.
func (s *Server) askAside(c echo.Context) error {
	node, text, err := nodeMessage(c)
	if err != nil {
		return err
	}
	if err := s.chat.AskAside(c.Request().Context(), sessionOf(c), c.Param("id"), node, text); err != nil {
		return err
	}
	return newSSE(c).MarshalAndPatchSignals(map[string]any{"_aside": 0})
}

// continueHere answers POST /c/:id/nodes/:node/continue: the thread of
// that side question becomes the flow, the question that waited withdrawn
// (204).
func (s *Server) continueHere(c echo.Context) error {
	node, err := nodeParam(c)
	if err != nil {
		return err
	}
	if err := s.chat.ContinueHere(c.Request().Context(), sessionOf(c), c.Param("id"), node); err != nil {
		return err
	}
	return c.NoContent(http.StatusNoContent)
}

// backToFlow answers POST /c/:id/to-flow: HEAD goes back from the side
// thread continued as the flow to the question that waited, which waits
// again (204).
func (s *Server) backToFlow(c echo.Context) error {
	if err := s.chat.BackToFlow(c.Request().Context(), sessionOf(c), c.Param("id")); err != nil {
		return err
	}
	return c.NoContent(http.StatusNoContent)
}

// retryReply answers POST /c/:id/replies/:node/retry: the turn that ended
// in that reply is taken again on a new branch beside the old one — resumed
// before the model call it failed on, or from its message sent again
// (204).
func (s *Server) retryReply(c echo.Context) error {
	node, err := nodeParam(c)
	if err != nil {
		return err
	}
	if err := s.chat.Retry(c.Request().Context(), sessionOf(c), c.Param("id"), node); err != nil {
		return err
	}
	return c.NoContent(http.StatusNoContent)
}

// switchBranch answers POST /c/:id/nodes/:node/switch: the branch through
// that message or answer becomes the current one (204).
func (s *Server) switchBranch(c echo.Context) error {
	node, err := nodeParam(c)
	if err != nil {
		return err
	}
	if err := s.chat.Switch(c.Request().Context(), sessionOf(c), c.Param("id"), node); err != nil {
		return err
	}
	return c.NoContent(http.StatusNoContent)
}

// changeAnswer answers POST /c/:id/elicits/:eid/change, an answer in the
// same forms as answerElicit, given again to a question already answered:
// the flow continues from there on a new branch. The response closes the
// page's change form.
func (s *Server) changeAnswer(c echo.Context) error {
	a, err := readAnswer(c.Request())
	if err != nil {
		return err
	}
	if err := s.chat.ChangeAnswer(c.Request().Context(), sessionOf(c), c.Param("id"), c.Param("eid"), a); err != nil {
		return err
	}
	return newSSE(c).MarshalAndPatchSignals(map[string]any{"_changing": ""})
}

// formValue reads one field of a form body.
func formValue(c echo.Context, name string) (string, error) {
	form, err := readForm(c.Request())
	if err != nil {
		return "", err
	}
	if _, ok := form[name]; !ok {
		return "", apperr.Errorf(apperr.Invalid, "The request has no %q field.", name)
	}
	return form.Get(name), nil
}

// readForm parses a form body, URL-encoded or multipart. The body's limit
// is already set (limitBody); a body over it is TooLarge, not a form with
// fields missing. (Request.ParseMultipartForm would hide that: on a body
// that is not multipart it drops ParseForm's error.)
func readForm(r *http.Request) (url.Values, error) {
	ct, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	var err error
	switch ct {
	case "application/x-www-form-urlencoded":
		err = r.ParseForm()
	case "multipart/form-data":
		err = r.ParseMultipartForm(1 << 20)
	default:
		return nil, apperr.Errorf(apperr.Invalid, "Send this as a form, not %q.", ct)
	}
	if err != nil {
		return nil, badBody(err)
	}
	return r.PostForm, nil
}

// elicitProgress answers POST /c/:id/elicits/:eid/progress: a step the
// browser reports while it works on a request (JSON {"stage", "message"}),
// shown live and handed to the agent. 204, 404/409 when the elicit is not
// pending, or 429 when reports come faster than a question takes them.
func (s *Server) elicitProgress(c echo.Context) error {
	// A report is the browser's doing, not the user's: it leaves a notice
	// the user has yet to read. A flood of reports, refused with TooMany,
	// says nothing either (command).
	leaveNotice(c)
	var p elicit.Progress
	dec := json.NewDecoder(c.Request().Body)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&p); err != nil {
		return badBody(err)
	}
	if err := s.chat.Progress(c.Request().Context(), sessionOf(c), c.Param("id"), c.Param("eid"), p); err != nil {
		return err
	}
	return c.NoContent(http.StatusNoContent)
}

func readAnswer(r *http.Request) (chat.Answer, error) {
	ct, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	var a chat.Answer
	switch ct {
	case "application/json":
		var in struct {
			Action  elicit.Action   `json:"action"`
			Content json.RawMessage `json:"content"`
			Text    string          `json:"text"`
		}
		dec := json.NewDecoder(r.Body)
		dec.DisallowUnknownFields()
		if err := dec.Decode(&in); err != nil {
			return a, badBody(err)
		}
		a = chat.Answer{Action: in.Action, Content: in.Content, Text: in.Text}
	case "application/x-www-form-urlencoded", "multipart/form-data":
		posted, err := readForm(r)
		if err != nil {
			return a, err
		}
		form := url.Values{}
		for k, v := range posted {
			form[k] = v
		}
		a.Action = elicit.Action(form.Get("_action"))
		a.Text = form.Get("_text")
		delete(form, "_action")
		delete(form, "_text")
		a.Form = form
	default:
		return a, apperr.Errorf(apperr.Invalid, "Send the answer as a form or as JSON, not %q.", ct)
	}
	if !a.Action.Valid() {
		return a, apperr.Errorf(apperr.Invalid, "%q is not an action; use accept, decline, cancel, denied or other.", a.Action)
	}
	return a, nil
}

// badBody words a body that could not be read. It is the one place a body
// over the limit (limitBody) becomes TooLarge: every reader of a body
// hands its error here.
func badBody(err error) error {
	var maxErr *http.MaxBytesError
	if errors.As(err, &maxErr) {
		return apperr.Errorf(apperr.TooLarge, "That request is larger than the %d KiB limit.", maxErr.Limit>>10)
	}
	if errors.Is(err, io.EOF) {
		return apperr.Errorf(apperr.Invalid, "The request body is empty.")
	}
	if field, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
		return apperr.Errorf(apperr.Invalid, "The body has a field %s this request does not take.", field)
	}
	return apperr.Errorf(apperr.Invalid, "The request body could not be read as it should be.")
}
