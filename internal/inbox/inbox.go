// Package inbox keeps what a conversation knows of the messages sent to
// it: which were recorded, by the ids their senders gave them (so a
// message sent again is not sent twice, and its resend answers as the
// first send did), which are on their way while a waiting question's turn
// decides what they are, and which are queued for the running turn to end.
package inbox

import (
	"context"
	"strings"

	"github.com/sweatpants-go/sweatpants/internal/apperr"
	"github.com/sweatpants-go/sweatpants/internal/inbound"
	"github.com/sweatpants-go/sweatpants/internal/tree"
)

// StoppedByMessage is what a Stopped node says when a new message
// interrupted the turn (whileWorkingLocked).
const StoppedByMessage = "Stopped: you sent a new message."

// Inbox is what a conversation knows of the messages sent to it: the ids
// of those recorded (built on first use, see sentIDs), those being decided
// on, and those queued for the running turn to end. The conversation's
// lock guards it: each method is called with it held.
type Inbox struct {
	idx *tree.Index // the conversation's nodes
	// queue are the messages waiting for the running turn to end, as
	// recorded, with the Queued nodes that record them.
	queue []Queued
	// onTheWay are the messages with an id being decided on, by id, and
	// sentIDs the ids of the messages recorded, with their nodes, once
	// built.
	onTheWay map[string]*Sending
	ids      map[string]int64
}

// Sending is what a message with an id became, or will become: a message
// being decided on (decide.go) is on its way while the conversation goes
// on, and a resend of it meanwhile waits for the first send to finish and
// answers as it does.
type Sending struct {
	text string
	done chan struct{} // closed once sent and err are set
	sent inbound.Sent
	err  error
}

// sentAlready is the sending of a message recorded before as sent.
func sentAlready(text string, sent inbound.Sent) *Sending {
	s := &Sending{text: text, done: make(chan struct{}), sent: sent}
	close(s.done)
	return s
}

// Finish sets what the first send of a message did, for its resends.
func (s *Sending) Finish(sent inbound.Sent, err error) {
	s.sent, s.err = sent, err
	close(s.done)
}

// Wait returns what the first send of the message did, once it is done.
func (s *Sending) Wait(ctx context.Context) (inbound.Sent, error) {
	select {
	case <-s.done:
		return s.sent, s.err
	case <-ctx.Done():
		return "", ctx.Err()
	}
}

// Prior returns what became of the message sent before with m's id,
// if one was: recorded, queued or on its way. Conflict when that message
// says something else than m: the first one stands.
func (ib *Inbox) Prior(m inbound.Message) (*Sending, error) {
	if m.ID == "" {
		return nil, nil
	}
	prior := ib.sending(m.ID)
	if prior == nil {
		return nil, nil
	}
	if prior.text != m.Text {
		return nil, apperr.Errorf(apperr.Conflict, "A message with this id was already sent, saying something else; the first one stands.")
	}
	return prior, nil
}

// sending finds the message sent with id: on its way, queued, or
// recorded on any branch.
func (ib *Inbox) sending(id string) *Sending {
	if s := ib.onTheWay[id]; s != nil {
		return s
	}
	for _, q := range ib.queue {
		if q.Message.ID == id {
			return sentAlready(q.Message.Text, inbound.SentQueued)
		}
	}
	n, ok := ib.idx.Node(ib.sentIDs()[id])
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
		return sentAlready(m.Text, ib.started(n))
	}
	return nil
}

// started says what user message n did as it started its turn, which
// its parent tells: it joined the message before it, or it interrupted
// the turn that worked, or it just started a turn.
func (ib *Inbox) started(n tree.Node) inbound.Sent {
	p, _ := ib.idx.Node(n.Parent)
	switch p.Kind {
	case tree.UserMessage:
		return inbound.SentJoined
	case tree.Stopped:
		if m, _ := tree.Decode[tree.Message](p); m.Text == StoppedByMessage {
			return inbound.SentInterrupted
		}
	}
	return inbound.SentTurn
}

// sentIDs returns the conversation's message ids, each with the node
// that records its message. The map is built from the index the first time
// a message with an id is sent, and kept up to date as nodes are recorded
// (Note): a conversation can hold a million nodes, so it is
// not searched at each message, and a conversation only read, never
// written to, never builds it. A node that garbage collection dropped
// stays in it, and is not found in the index.
func (ib *Inbox) sentIDs() map[string]int64 {
	if ib.ids == nil {
		ib.ids = map[string]int64{}
		for _, n := range ib.idx.Nodes() {
			ib.addSentIDs(n)
		}
	}
	return ib.ids
}

// Note adds the message id the node n just recorded holds, if any, once
// the map of them is built.
func (ib *Inbox) Note(n tree.Node) {
	if ib.ids != nil {
		ib.addSentIDs(n)
	}
}

// addSentIDs adds the message ids n records to ib.ids.
func (ib *Inbox) addSentIDs(n tree.Node) {
	switch n.Kind {
	case tree.Decision:
		if d, _ := tree.Decode[tree.DecisionRecord](n); d.ID != "" {
			ib.ids[d.ID] = n.ID
		}
	case tree.UserMessage:
		m, _ := tree.Decode[tree.Message](n)
		if m.ID != "" {
			ib.ids[m.ID] = n.ID
		}
		for _, p := range m.Parts {
			ib.ids[p.ID] = n.ID
		}
	}
}

// New is the inbox of the conversation whose nodes idx holds, with the
// messages queued before a restart, still to be sent, queued again.
func New(idx *tree.Index) *Inbox {
	ib := &Inbox{idx: idx, onTheWay: map[string]*Sending{}}
	for _, n := range idx.Unsent() {
		m, _ := tree.Decode[tree.Message](n)
		ib.queue = append(ib.queue, Queued{Message: tree.Message{ID: m.ID, Text: m.Text, Attachments: m.Attachments}, Node: n.ID})
	}
	return ib
}

// Queue queues m, recorded as node queued, for the running turn to
// end.
func (ib *Inbox) Queue(m inbound.Message, node int64) {
	ib.queue = append(ib.queue, Queued{Message: m.Record(), Node: node})
}

// Queued is a message queued for the running turn to end, as recorded by
// the node Node.
type Queued struct {
	Message tree.Message
	Node    int64
}

// Take returns the messages queued and empties the queue.
func (ib *Inbox) Take() []Queued {
	q := ib.queue
	ib.queue = nil
	return q
}

// Texts returns the texts of the messages queued, as the status shows
// them.
func (ib *Inbox) Texts() []string {
	var texts []string
	for _, q := range ib.queue {
		texts = append(texts, q.Message.Text)
	}
	return texts
}

// Decide notes that m, which has an id, is on its way while it is decided
// on: a resend of it meanwhile waits for what it becomes.
func (ib *Inbox) Decide(m inbound.Message) {
	ib.onTheWay[m.ID] = &Sending{text: m.Text, done: make(chan struct{})}
}

// Deciding reports whether the message with id is on its way.
func (ib *Inbox) Deciding(id string) bool { return ib.onTheWay[id] != nil }

// Decided takes the message with id off its way, returning what its
// resends wait on (nil for a message with no id).
func (ib *Inbox) Decided(id string) *Sending {
	on := ib.onTheWay[id]
	delete(ib.onTheWay, id)
	return on
}

// Joined is the user message of the messages queued while a turn worked,
// which keeps the id each was sent with and names the nodes that recorded
// them, sent from now on.
func Joined(queue []Queued) tree.Message {
	var m tree.Message
	texts := make([]string, 0, len(queue))
	for _, q := range queue {
		texts = append(texts, q.Message.Text)
		m.Attachments = append(m.Attachments, q.Message.Attachments...)
		if q.Message.ID != "" {
			m.Parts = append(m.Parts, tree.Part{ID: q.Message.ID, Text: q.Message.Text})
		}
		if q.Node != 0 {
			m.Queued = append(m.Queued, q.Node)
		}
	}
	m.Text = strings.Join(texts, "\n\n")
	return m
}
