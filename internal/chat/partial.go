package chat

import (
	"errors"

	"github.com/sweatpants-go/sweatpants/internal/tree"
)

// What streamed of a reply that did not finish. A turn stopped by the user,
// or ended by a model call that broke off after its reply began to show,
// keeps what the user saw of the reply on the node that records its end
// (tree.Message.Partial), marked as unfinished; Retry takes the turn again.

// brokenReply is a model call that failed after its reply began to show.
type brokenReply struct {
	err  error  // the call's failure
	text string // what had streamed of its reply
}

// brokeOff is what the chat says of a turn whose reply broke off.
const brokeOff = "The model's reply broke off before it finished. Try again."

// sampledLocked notes how t's model call ended before its draft is
// cleared: a call that failed after its reply began to show is kept as
// broken, any other call forgets the one before it. c.mu is held.
func (t *turn) sampledLocked(callErr error) {
	t.broken = brokenReply{}
	if d := t.draftLocked(); callErr != nil && d != "" {
		t.broken = brokenReply{err: callErr, text: d}
	}
}

// keepPartialLocked puts on m, the end of t as kind after err, what
// streamed of the unfinished reply: the draft of a stopped turn, or what
// the call whose failure ended the turn had shown, said to have broken
// off. c.mu is held.
func (t *turn) keepPartialLocked(kind tree.Kind, err error, m *tree.Message) {
	switch {
	case kind == tree.Stopped:
		m.Partial = t.draftLocked()
	case kind == tree.TurnError && t.broken.err != nil && errors.Is(err, t.broken.err):
		m.Text, m.Partial = brokeOff, t.broken.text
	}
}
