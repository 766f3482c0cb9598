package chat

import (
	"context"
	"strings"
	"unicode/utf8"

	"github.com/sweatpants-go/sweatpants/agents"
	"github.com/sweatpants-go/sweatpants/elicit"
	"github.com/sweatpants-go/sweatpants/internal/apperr"
	"github.com/sweatpants-go/sweatpants/internal/decide"
	"github.com/sweatpants-go/sweatpants/internal/lineend"
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

// MaxMessageLen is the longest message a user can send, in characters.
const MaxMessageLen = 8000

// CheckMessage reports, as Send would, why text cannot be sent, if it cannot.
func CheckMessage(text string) error {
	_, err := checkMessage(text)
	return err
}

// checkMessage trims a message, ends its lines with "\n" alone, and checks
// its length.
func checkMessage(text string) (string, error) { return checkMessageUpTo(text, MaxMessageLen) }

// checkMessageUpTo is checkMessage with limit characters at most (0:
// MaxMessageLen).
func checkMessageUpTo(text string, limit int) (string, error) {
	if limit <= 0 {
		limit = MaxMessageLen
	}
	text = strings.TrimSpace(lineend.Normalize(text))
	if text == "" {
		return "", apperr.Errorf(apperr.Invalid, "Type a message before sending.")
	}
	if n := utf8.RuneCountInString(text); n > limit {
		return "", apperr.Errorf(apperr.Invalid, "That message is %d characters long; the limit is %d.", n, limit)
	}
	return text, nil
}

// Send records a user message and starts a turn of the conversation's
// agent; see SendMessage for a message sent while a turn runs. Invalid for
// an empty or overlong message, and then nothing is recorded.
func (s *Service) Send(ctx context.Context, session, id, text string) error {
	_, err := s.SendMessage(ctx, session, id, Message{Text: text})
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
func (s *Service) SendMessage(ctx context.Context, session, id string, m Message) (Sent, error) {
	m, err := m.checked()
	if err != nil {
		return "", err
	}
	if m.ID != "" {
		if err := checkMessageID(m.ID); err != nil {
			return "", err
		}
	}
	var sent Sent
	err = s.holding(ctx, session, id, func(c *conversation) error {
		sent, err = s.sendHeld(ctx, c, m)
		return err
	})
	return sent, err
}

// sendHeld sends m to c, which is held in memory, not locked.
func (s *Service) sendHeld(ctx context.Context, c *conversation, m Message) (sent Sent, err error) {
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
				c.page.informLocked(messageKept)
			}
			return err
		}
		if !c.running() {
			return s.startLocked(ctx, c, a, m.record())
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
func (s *Service) actOnLocked(ctx context.Context, c *conversation, a agents.Assistant, q asked, d decision) (Sent, error) {
	req, waiting := c.questions.waitingOnLocked()
	m := Message{ID: d.ID, Text: d.Text}
	switch {
	case !c.running():
		return SentTurn, s.startLocked(ctx, c, a, m.record())
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
		return SentAnswer, h.err
	case decide.Change:
		return SentChange, c.changeLocked(ctx, d.Change, elicit.Response{Action: elicit.Other, Text: d.Text})
	}
	return SentSide, s.sideQuestLocked(ctx, c, a, c.path.Head(), d.Text)
}

// inbox is what the conversation knows of the messages sent to it: the
// ids of those recorded (built on first use, see sentIDsLocked), those
// being decided on, and those queued for the running turn to end
// (input.go). It owns these fields, which conversation's mu guards.
type inbox struct {
	c *conversation
	// queue are the messages waiting for the running turn to end.
	queue []Message
	// onTheWay are the messages with an id being decided on, by id, and
	// sentIDs the ids of the messages recorded, with their nodes, once
	// built.
	onTheWay map[string]*sending
	sentIDs  map[string]int64
}

// Message is a message as its sender sends it.
type Message struct {
	// ID is the id the sender chose for the message, by which a resend of
	// it is known: 1 to MaxMessageIDLen letters, digits, '-' or '_'. ""
	// for none: each send is then a new message.
	ID   string
	Text string
	// Attachments are the files sent with it (package files), the
	// sender's own: a message may be files alone.
	Attachments []tree.Attachment
	// Limit is the longest Text may be, in characters; 0 is MaxMessageLen,
	// the composer's. A program's message is bounded by the request that
	// carried it instead (a tool call over MCP: its arguments).
	Limit int
	// Call is the tool call a program sends as the message (a call over
	// MCP), recorded typed in the message's payload; the turn reads it
	// with CallOf, and records its outcome with ReturnCall. Text then names
	// the call for a person reading the conversation.
	Call *tree.Call

	queued int64 // the Queued node that records it, while it waits for a turn to end (input.go)
}

// record is m as a user message records it.
func (m Message) record() tree.Message {
	return tree.Message{ID: m.ID, Text: m.Text, Attachments: m.Attachments, Call: m.Call}
}

// Check reports, as SendMessage would, why m cannot be sent, if it cannot.
func (m Message) Check() error {
	_, err := m.checked()
	return err
}

// checked is m with its words trimmed and checked (checkMessage): files
// alone are a message, words too long are refused with files or without.
func (m Message) checked() (Message, error) {
	text, err := checkMessageUpTo(m.Text, m.Limit)
	if err != nil && (len(m.Attachments) == 0 || strings.TrimSpace(m.Text) != "") {
		return m, err
	}
	m.Text = text
	return m, nil
}

// checkMessageID reports why id cannot name a message, if it cannot.
func checkMessageID(id string) error {
	if !tree.ValidMessageID(id) {
		return apperr.Errorf(apperr.Invalid, "A message id is 1 to %d letters, digits, '-' or '_'.", tree.MaxMessageIDLen)
	}
	return nil
}

// messageKept is what the pages are told when a message arrives again: a
// resend after a lost response finds it sent, which is news, not a problem.
const messageKept = "Your message was already sent."

// sending is what a message with an id became, or will become: a message
// being decided on (decide.go) is on its way while the conversation goes
// on, and a resend of it meanwhile waits for the first send to finish and
// answers as it does.
type sending struct {
	text string
	done chan struct{} // closed once sent and err are set
	sent Sent
	err  error
}

// sentAlready is the sending of a message recorded before as sent.
func sentAlready(text string, sent Sent) *sending {
	s := &sending{text: text, done: make(chan struct{}), sent: sent}
	close(s.done)
	return s
}

// finish sets what the first send of a message did, for its resends.
func (s *sending) finish(sent Sent, err error) {
	s.sent, s.err = sent, err
	close(s.done)
}

// wait returns what the first send of the message did, once it is done.
func (s *sending) wait(ctx context.Context) (Sent, error) {
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
func (ib *inbox) priorLocked(m Message) (*sending, error) {
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
		if q.ID == id {
			return sentAlready(q.Text, SentQueued)
		}
	}
	n, ok := ib.c.idx.Node(ib.sentIDsLocked()[id])
	if !ok {
		return nil // never recorded, or collected with its branch
	}
	switch n.Kind {
	case tree.Decision:
		d, _ := tree.Decode[tree.DecisionRecord](n)
		return sentAlready(d.Text, Sent(d.Choice))
	case tree.UserMessage:
		m, _ := tree.Decode[tree.Message](n)
		for _, p := range m.Parts {
			if p.ID == id {
				return sentAlready(p.Text, SentQueued)
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
func (ib *inbox) startedLocked(n tree.Node) Sent {
	p, _ := ib.c.idx.Node(n.Parent)
	switch p.Kind {
	case tree.UserMessage:
		return SentJoined
	case tree.Stopped:
		if m, _ := tree.Decode[tree.Message](p); m.Text == stoppedByMessage {
			return SentInterrupted
		}
	}
	return SentTurn
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
		ib.queue = append(ib.queue, Message{ID: m.ID, Text: m.Text, Attachments: m.Attachments, queued: n.ID})
	}
}

// queueLocked queues m, recorded as node queued, for the running turn to
// end. c.mu is held.
func (ib *inbox) queueLocked(m Message, queued int64) {
	m.queued = queued
	ib.queue = append(ib.queue, m)
}

// takeQueueLocked returns the messages queued and empties the queue. c.mu
// is held.
func (ib *inbox) takeQueueLocked() []Message {
	q := ib.queue
	ib.queue = nil
	return q
}

// queuedLocked returns the texts of the messages queued, as the status
// shows them. c.mu is held.
func (ib *inbox) queuedLocked() []string {
	var texts []string
	for _, m := range ib.queue {
		texts = append(texts, m.Text)
	}
	return texts
}

// decideLocked notes that m, which has an id, is on its way while it is
// decided on: a resend of it meanwhile waits for what it becomes. c.mu is
// held.
func (ib *inbox) decideLocked(m Message) {
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
