package chat

import (
	"context"
	"errors"
	"net/url"

	"github.com/sweatpants-go/sweatpants/elicit"
	"github.com/sweatpants-go/sweatpants/internal/answercheck"
	"github.com/sweatpants-go/sweatpants/internal/apperr"
	"github.com/sweatpants-go/sweatpants/internal/durable"
	"github.com/sweatpants-go/sweatpants/internal/pageview"
	"github.com/sweatpants-go/sweatpants/internal/tree"
)

// Answers. An answer arrives as the user sent it (an action, and form
// values or JSON), is converted and checked against the question it
// answers, and is handed to the turn waiting on it (see held.go for how it
// is written). A refused answer stays with its question, for the page to
// show what was wrong.

// Answer is a user's response to an elicit as it arrives: an action and
// either HTML form values or JSON content, which the service converts and
// checks against the request's schema.
type Answer struct {
	Action  elicit.Action
	Form    url.Values
	Content []byte
	Text    string
}

// Answer records the answer to elicit eid and resumes the turn waiting on
// it. Errors: NotFound for an unknown conversation or elicit; Conflict for
// an elicit already answered otherwise or no longer waited on (the first
// answer stands; the same answer sent again is accepted, changing nothing); Invalid with Fields for content that breaks the schema, in which
// case the elicit stays pending and shows what was wrong.
func (s *Service) Answer(ctx context.Context, session, id, eid string, a Answer) error {
	return s.holding(ctx, session, id, func(c *conversation) error {
		h, err := c.questions.answer(ctx, eid, a)
		if err != nil || h == nil {
			return err
		}
		return h.wait() // unlocked: the turn writes the answer
	})
}

// answer checks a and hands it to the turn waiting on eid.
func (qs *questions) answer(ctx context.Context, eid string, a Answer) (*heldAnswer, error) {
	qs.c.lock()
	defer qs.c.mu.Unlock()
	if !qs.IsPending(eid) {
		if qs.recordedAlreadyLocked(ctx, eid, a) {
			qs.c.page.informLocked(answerKept)
			return nil, nil
		}
		return nil, qs.notPendingLocked(eid)
	}
	req := qs.requestLocked(eid)
	resp, problem, err := qs.checkLocked(ctx, req, a)
	if err != nil {
		return nil, err
	}
	if problem != nil {
		return nil, qs.rejectLocked(req, a.Form, problem)
	}
	resp.Progress = []elicit.Progress(qs.pending[eid].reported) // recorded with the answer, as the server heard it
	return qs.deliverLocked(req, resp)
}

// recordedAlreadyLocked reports whether a is the answer recorded for eid:
// a resend of it (a double click, a page resending after a lost response)
// is not a conflict, since what the user meant is what stands. c.mu is
// held.
func (qs *questions) recordedAlreadyLocked(ctx context.Context, eid string, a Answer) bool {
	was, ok := qs.responseLocked(eid)
	if !ok {
		return false
	}
	resp, problem, err := qs.checkLocked(ctx, qs.requestLocked(eid), a)
	return err == nil && problem == nil && resp.Action == was.Action && resp.Text == was.Text &&
		(len(resp.Content) == 0 && len(was.Content) == 0 || durable.SameJSON(resp.Content, was.Content))
}

// answerKept is what a page that sent an answer again is told: a resend
// after a lost response (the server restarted, the connection broke) finds
// the answer recorded, which is news, not a problem.
const answerKept = "Your answer was already recorded."

// checkLocked converts a and checks it against req (package answercheck),
// by what the conversation knows besides the question: the session's
// files, which are looked up by their key, and the rules its turns run
// under. c.mu is held.
func (qs *questions) checkLocked(ctx context.Context, req elicit.Request, a Answer) (resp elicit.Response, problem, err error) {
	c := qs.c
	ch := answercheck.Checker{Kinds: c.svc.kinds, Rules: func(ctx context.Context) context.Context {
		asst, _ := c.svc.agents.Get(c.conv.Agent) // none: the program's rules alone
		return c.svc.ruled(ctx, asst)
	}}
	if c.svc.files != nil {
		ch.Files = answerFiles{c}
	}
	return ch.Check(ctx, req, answercheck.Given(a))
}

// rejectLocked keeps a rejected submission for display and reports it.
func (qs *questions) rejectLocked(req elicit.Request, form url.Values, problem error) error {
	rv := &pageview.ElicitView{Values: form}
	e := &apperr.Error{Code: apperr.Invalid}
	if ferrs, ok := errors.AsType[elicit.FieldErrors](problem); ok {
		rv.Errors = ferrs
		e.Fields = ferrs
		e.Message = "Some answers need fixing: " + ferrs.Error()
	} else {
		rv.Problem = "That answer can't be accepted: " + problem.Error() + "."
		e.Message = rv.Problem
	}
	qs.rejected[req.ID] = rv
	qs.broadcastItemLocked(req.ID)
	return e
}

// notPendingLocked explains why eid cannot be answered.
func (qs *questions) notPendingLocked(eid string) error {
	if _, ok := qs.requestNodeLocked(eid); ok {
		if _, answered := qs.responseNodeLocked(eid); answered {
			return apperr.Errorf(apperr.Conflict, "That question was already answered; the first answer stands.")
		}
		return apperr.Errorf(apperr.Conflict, "That question is no longer waiting for an answer.")
	}
	for _, id := range qs.c.idx.WithRef(eid) {
		if n, _ := qs.c.idx.Node(id); n.Kind == tree.ElicitRequest {
			// Asked on a branch the conversation has left (an edit, a
			// switch): it is there, but not to be answered from here.
			return apperr.Errorf(apperr.Conflict, "That question was asked on a branch the conversation has left; it can no longer be answered.")
		}
	}
	return apperr.Errorf(apperr.NotFound, "There is no question %q in this conversation.", eid)
}
