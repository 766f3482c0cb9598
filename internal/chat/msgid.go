package chat

import (
	"context"
	"strings"

	"github.com/sweatpants-go/sweatpants/internal/apperr"
	"github.com/sweatpants-go/sweatpants/internal/tree"
)

// Message ids. A page gives each message it sends an id of its own
// choosing, and sends it again with the same id when it did not hear back
// (the connection broke, the server restarted). The id is recorded with
// what the message became — the user message that started a turn, the
// decision on a message typed while a question waited, a message queued
// while a turn worked — so the same message sent again is known, even
// after a restart or on another branch, and is recorded once, as an
// answer is (answer.go).

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
func (c *conversation) priorLocked(m Message) (*sending, error) {
	if m.ID == "" {
		return nil, nil
	}
	prior := c.sendingLocked(m.ID)
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
func (c *conversation) sendingLocked(id string) *sending {
	if s := c.onTheWay[id]; s != nil {
		return s
	}
	for _, q := range c.queue {
		if q.ID == id {
			return sentAlready(q.Text, SentQueued)
		}
	}
	n, ok := c.idx.Node(c.sentIDsLocked()[id])
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
		return sentAlready(m.Text, c.startedLocked(n))
	}
	return nil
}

// startedLocked says what user message n did as it started its turn,
// which its parent tells: it joined the message before it, or it
// interrupted the turn that worked, or it just started a turn. c.mu is
// held.
func (c *conversation) startedLocked(n tree.Node) Sent {
	p, _ := c.idx.Node(n.Parent)
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
func (c *conversation) sentIDsLocked() map[string]int64 {
	if c.sentIDs == nil {
		c.sentIDs = map[string]int64{}
		for _, n := range c.idx.Nodes() {
			c.addSentIDs(n)
		}
	}
	return c.sentIDs
}

// noteSentIDLocked adds the message id n records, if any, once the map of
// them is built. c.mu is held.
func (c *conversation) noteSentIDLocked(n tree.Node) {
	if c.sentIDs != nil {
		c.addSentIDs(n)
	}
}

// addSentIDs adds the message ids n records to c.sentIDs.
func (c *conversation) addSentIDs(n tree.Node) {
	switch n.Kind {
	case tree.Decision:
		if d, _ := tree.Decode[tree.DecisionRecord](n); d.ID != "" {
			c.sentIDs[d.ID] = n.ID
		}
	case tree.UserMessage:
		m, _ := tree.Decode[tree.Message](n)
		if m.ID != "" {
			c.sentIDs[m.ID] = n.ID
		}
		for _, p := range m.Parts {
			c.sentIDs[p.ID] = n.ID
		}
	}
}
