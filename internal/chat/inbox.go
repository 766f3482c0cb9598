package chat

import (
	"context"

	"github.com/sweatpants-go/sweatpants/agents"
	"github.com/sweatpants-go/sweatpants/elicit"
	"github.com/sweatpants-go/sweatpants/internal/apperr"
	"github.com/sweatpants-go/sweatpants/internal/decide"
	"github.com/sweatpants-go/sweatpants/internal/inbound"
	"github.com/sweatpants-go/sweatpants/internal/inbox"
)

// The inbox: a message comes in here (Send, SendMessage), is checked, and
// starts a turn, or does what the assistant says of a message sent while a
// turn works (input.go), or, while a question waits, is decided on
// (decide.go).
//
// Message ids. A page gives each message it sends an id of its own
// choosing, and sends it again with the same id when it did not hear back
// (the connection broke, the server restarted). The id is recorded with
// what the message became — the user message that started a turn, the
// decision on a message typed while a question waited, a message queued
// while a turn worked — so the same message sent again is known, even
// after a restart or on another branch, and is recorded once, as an
// answer is (answer.go).

// Send records a user message and starts a turn of the conversation's
// agent; see SendMessage for a message sent while a turn runs. Invalid for
// an empty or overlong message, and then nothing is recorded.
func (s *Service) Send(ctx context.Context, session, id, text string) error {
	_, err := s.SendMessage(ctx, session, id, inbound.Message{Text: text})
	return err
}

// SendMessage is Send, saying what the message did. While a turn works,
// the message does what the assistant's InputPolicy says (input.go); while
// it waits on a question, the message is decided on (decide.go): an answer
// in words, a change of an earlier answer, or a side question.
//
// A message sent again with the id it was sent with (below) is not
// recorded again: it does what it did the first time, and the pages are
// told, as news, that it was already sent. Errors: Invalid for an id that
// is not one; Conflict for an id sent before with other words.
func (s *Service) SendMessage(ctx context.Context, session, id string, m inbound.Message) (inbound.Sent, error) {
	m, err := m.Checked()
	if err != nil {
		return "", err
	}
	var sent inbound.Sent
	err = s.holding(ctx, session, id, func(c *conversation) error {
		sent, err = s.sendHeld(ctx, c, m)
		return err
	})
	return sent, err
}

// sendHeld sends m to c, which is held in memory, not locked.
func (s *Service) sendHeld(ctx context.Context, c *conversation, m inbound.Message) (sent inbound.Sent, err error) {
	var (
		prior *inbox.Sending
		q     *asked // set when a question waits: the text is decided on unlocked
	)
	err = func() error {
		c.lock()
		defer c.mu.Unlock()
		a, ok := s.agents.Get(c.conv.Agent)
		if !ok {
			return apperr.Errorf(apperr.Invalid, "This conversation's agent %q is not available.", c.conv.Agent)
		}
		if prior, err = c.inbox.Prior(m); prior != nil || err != nil {
			if prior != nil && !c.inbox.Deciding(m.ID) {
				c.page.informLocked(inbound.Kept)
			}
			return err
		}
		if !c.running() {
			return s.startLocked(ctx, c, a, m.Record())
		}
		if req, waiting := c.questions.waitingOnLocked(); waiting {
			if len(m.Attachments) > 0 {
				return apperr.Errorf(apperr.Conflict, "A question waits: answer it first, then send the files.")
			}
			q = new(c.questions.askedLocked(req))
			if m.ID != "" {
				c.inbox.Decide(m)
			}
			return nil
		}
		sent, err = s.whileWorkingLocked(ctx, c, a, m)
		c.page.saySentLocked(sent, err)
		return err
	}()
	if prior != nil {
		return prior.Wait(ctx)
	}
	if err != nil || q == nil {
		return sent, err
	}
	// Deciding may take a model call: the conversation goes on meanwhile,
	// and a resend of m waits for what it becomes.
	d := s.decide(ctx, *q, m.ID, m.Text)
	d.ID = m.ID
	c.lock()
	defer c.mu.Unlock()
	if on := c.inbox.Decided(m.ID); on != nil {
		defer func() { on.Finish(sent, err) }()
	}
	a, ok := s.agents.Get(c.conv.Agent)
	if !ok {
		return "", apperr.Errorf(apperr.Invalid, "This conversation's agent %q is not available.", c.conv.Agent)
	}
	sent, err = s.actOnLocked(ctx, c, a, *q, d)
	c.page.saySentLocked(sent, err)
	return sent, err
}

// actOnLocked does what d decided text typed while q waited is. Should
// the conversation have moved on meanwhile (the question was answered, the
// turn ended), the text is taken as it would be now, without deciding
// again. c.mu is held.
func (s *Service) actOnLocked(ctx context.Context, c *conversation, a agents.Assistant, q asked, d decision) (inbound.Sent, error) {
	req, waiting := c.questions.waitingOnLocked()
	m := inbound.Message{ID: d.ID, Text: d.Text}
	switch {
	case !c.running():
		return inbound.SentTurn, s.startLocked(ctx, c, a, m.Record())
	case !waiting:
		return s.whileWorkingLocked(ctx, c, a, m)
	case req.ID != q.Waits.ID || c.path.Head() != q.head:
		d = decision{Text: d.Text, ID: d.ID, Waited: req.ID, Choice: decide.Side, By: "rule", Reason: "the conversation moved on while it was decided"}
	}
	if err := c.recordDecisionLocked(ctx, d); err != nil {
		return "", err
	}
	switch d.Choice {
	case decide.Answer:
		h, err := c.questions.deliverLocked(req, elicit.Response{Action: elicit.Other, Text: d.Text})
		if err != nil {
			return "", err
		}
		c.questions.flushLocked()
		return inbound.SentAnswer, h.err
	case decide.Change:
		return inbound.SentChange, c.changeLocked(ctx, d.Change, elicit.Response{Action: elicit.Other, Text: d.Text})
	}
	return inbound.SentSide, s.sideQuestLocked(ctx, c, a, c.path.Head(), d.Text)
}
