package chat

import (
	"context"

	"github.com/sweatpants-go/sweatpants/agents"
	"github.com/sweatpants-go/sweatpants/elicit"
	"github.com/sweatpants-go/sweatpants/internal/apperr"
	"github.com/sweatpants-go/sweatpants/internal/decide"
	"github.com/sweatpants-go/sweatpants/internal/inbound"
	"github.com/sweatpants-go/sweatpants/internal/tree"
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
		prior *sending
		q     *asked // set when a question waits: the text is decided on unlocked
	)
	err = func() error {
		c.lock()
		defer c.mu.Unlock()
		a, ok := s.agents.Get(c.conv.Agent)
		if !ok {
			return apperr.Errorf(apperr.Invalid, "This conversation's agent %q is not available.", c.conv.Agent)
		}
		if prior, err = c.inbox.priorLocked(m); prior != nil || err != nil {
			if prior != nil && !c.inbox.decidingLocked(m.ID) {
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
				c.inbox.decideLocked(m)
			}
			return nil
		}
		sent, err = s.whileWorkingLocked(ctx, c, a, m)
		c.page.saySentLocked(sent, err)
		return err
	}()
	if prior != nil {
		return prior.wait(ctx)
	}
	if err != nil || q == nil {
		return sent, err
	}
	// Deciding may take a model call: the conversation goes on meanwhile,
	// and a resend of m waits for what it becomes.
	d := s.decide(ctx, *q, m.Text)
	d.ID = m.ID
	c.lock()
	defer c.mu.Unlock()
	if on := c.inbox.decidedLocked(m.ID); on != nil {
		defer func() { on.finish(sent, err) }()
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

// inbox is what the conversation knows of the messages sent to it: the
// ids of those recorded (built on first use, see sentIDsLocked), those
// being decided on, and those queued for the running turn to end
// (input.go). It owns these fields, which conversation's mu guards.
type inbox struct {
	c *conversation
	// queue are the messages waiting for the running turn to end, as
	// recorded, with the Queued nodes that record them.
	queue []queued
	// onTheWay are the messages with an id being decided on, by id, and
	// sentIDs the ids of the messages recorded, with their nodes, once
	// built.
	onTheWay map[string]*sending
	sentIDs  map[string]int64
}

// sending is what a message with an id became, or will become: a message
// being decided on (decide.go) is on its way while the conversation goes
// on, and a resend of it meanwhile waits for the first send to finish and
// answers as it does.
type sending struct {
	text string
	done chan struct{} // closed once sent and err are set
	sent inbound.Sent
	err  error
}

// sentAlready is the sending of a message recorded before as sent.
func sentAlready(text string, sent inbound.Sent) *sending {
	s := &sending{text: text, done: make(chan struct{}), sent: sent}
	close(s.done)
	return s
}

// finish sets what the first send of a message did, for its resends.
func (s *sending) finish(sent inbound.Sent, err error) {
	s.sent, s.err = sent, err
	close(s.done)
}

// wait returns what the first send of the message did, once it is done.
func (s *sending) wait(ctx context.Context) (inbound.Sent, error) {
	select {
	case <-s.done:
		return s.sent, s.err
	case <-ctx.Done():
		return "", ctx.Err()
	}
}

// priorLocked returns what became of the message sent before with m's id,
// if one was: recorded, queued or on its way. Conflict when that message
// says something else than m: the first one stands. c.mu is held.
func (ib *inbox) priorLocked(m inbound.Message) (*sending, error) {
	if m.ID == "" {
		return nil, nil
	}
	prior := ib.sendingLocked(m.ID)
	if prior == nil {
		return nil, nil
	}
	if prior.text != m.Text {
		return nil, apperr.Errorf(apperr.Conflict, "A message with this id was already sent, saying something else; the first one stands.")
	}
	return prior, nil
}

// sendingLocked finds the message sent with id: on its way, queued, or
// recorded on any branch. c.mu is held.
func (ib *inbox) sendingLocked(id string) *sending {
	if s := ib.onTheWay[id]; s != nil {
		return s
	}
	for _, q := range ib.queue {
		if q.m.ID == id {
			return sentAlready(q.m.Text, inbound.SentQueued)
		}
	}
	n, ok := ib.c.idx.Node(ib.sentIDsLocked()[id])
	if !ok {
		return nil // never recorded, or collected with its branch
	}
	switch n.Kind {
	case tree.Decision:
		d, _ := tree.Decode[tree.DecisionRecord](n)
		return sentAlready(d.Text, inbound.Sent(d.Choice))
	case tree.UserMessage:
		m, _ := tree.Decode[tree.Message](n)
		for _, p := range m.Parts {
			if p.ID == id {
				return sentAlready(p.Text, inbound.SentQueued)
			}
		}
		return sentAlready(m.Text, ib.startedLocked(n))
	}
	return nil
}

// startedLocked says what user message n did as it started its turn,
// which its parent tells: it joined the message before it, or it
// interrupted the turn that worked, or it just started a turn. c.mu is
// held.
func (ib *inbox) startedLocked(n tree.Node) inbound.Sent {
	p, _ := ib.c.idx.Node(n.Parent)
	switch p.Kind {
	case tree.UserMessage:
		return inbound.SentJoined
	case tree.Stopped:
		if m, _ := tree.Decode[tree.Message](p); m.Text == stoppedByMessage {
			return inbound.SentInterrupted
		}
	}
	return inbound.SentTurn
}

// sentIDsLocked returns the conversation's message ids, each with the node
// that records its message. The map is built from the index the first time
// a message with an id is sent, and kept up to date as nodes are recorded
// (noteSentIDLocked): a conversation can hold a million nodes, so it is
// not searched at each message, and a conversation only read, never
// written to, never builds it. A node that garbage collection dropped
// stays in it, and is not found in the index. c.mu is held.
func (ib *inbox) sentIDsLocked() map[string]int64 {
	if ib.sentIDs == nil {
		ib.sentIDs = map[string]int64{}
		for _, n := range ib.c.idx.Nodes() {
			ib.addSentIDs(n)
		}
	}
	return ib.sentIDs
}

// noteSentIDLocked adds the message id n records, if any, once the map of
// them is built. c.mu is held.
func (ib *inbox) noteSentIDLocked(n tree.Node) {
	if ib.sentIDs != nil {
		ib.addSentIDs(n)
	}
}

// addSentIDs adds the message ids n records to ib.sentIDs.
func (ib *inbox) addSentIDs(n tree.Node) {
	switch n.Kind {
	case tree.Decision:
		if d, _ := tree.Decode[tree.DecisionRecord](n); d.ID != "" {
			ib.sentIDs[d.ID] = n.ID
		}
	case tree.UserMessage:
		m, _ := tree.Decode[tree.Message](n)
		if m.ID != "" {
			ib.sentIDs[m.ID] = n.ID
		}
		for _, p := range m.Parts {
			ib.sentIDs[p.ID] = n.ID
		}
	}
}

// restore queues again the messages queued before a restart, which are
// still to be sent; c.idx is read.
func (ib *inbox) restore() {
	for _, n := range ib.c.idx.Unsent() {
		m, _ := tree.Decode[tree.Message](n)
		ib.queue = append(ib.queue, queued{m: tree.Message{ID: m.ID, Text: m.Text, Attachments: m.Attachments}, node: n.ID})
	}
}

// queueLocked queues m, recorded as node queued, for the running turn to
// end. c.mu is held.
func (ib *inbox) queueLocked(m inbound.Message, node int64) {
	ib.queue = append(ib.queue, queued{m: m.Record(), node: node})
}

// queued is a message queued for the running turn to end, as recorded by
// node.
type queued struct {
	m    tree.Message
	node int64
}

// takeQueueLocked returns the messages queued and empties the queue. c.mu
// is held.
func (ib *inbox) takeQueueLocked() []queued {
	q := ib.queue
	ib.queue = nil
	return q
}

// queuedLocked returns the texts of the messages queued, as the status
// shows them. c.mu is held.
func (ib *inbox) queuedLocked() []string {
	var texts []string
	for _, q := range ib.queue {
		texts = append(texts, q.m.Text)
	}
	return texts
}

// decideLocked notes that m, which has an id, is on its way while it is
// decided on: a resend of it meanwhile waits for what it becomes. c.mu is
// held.
func (ib *inbox) decideLocked(m inbound.Message) {
	ib.onTheWay[m.ID] = &sending{text: m.Text, done: make(chan struct{})}
}

// decidingLocked reports whether the message with id is on its way. c.mu
// is held.
func (ib *inbox) decidingLocked(id string) bool { return ib.onTheWay[id] != nil }

// decidedLocked takes the message with id off its way, returning what its
// resends wait on (nil for a message with no id). c.mu is held.
func (ib *inbox) decidedLocked(id string) *sending {
	on := ib.onTheWay[id]
	delete(ib.onTheWay, id)
	return on
}
