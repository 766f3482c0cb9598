package chat

import (
	"context"
	"encoding/json"
	"fmt"
	"time"
	"unicode/utf8"

	"github.com/sweatpants-go/sweatpants/elicit"
	"github.com/sweatpants-go/sweatpants/internal/tree"
)

// An answer is handed to the turn waiting on it before it is written, and
// written together with what the turn records next: most often, a few
// microseconds later, the turn's next question. The two then take one
// commit instead of two, which is most of the cost of a resume. Whoever
// handed the answer in hears it was accepted only once it is written, so an
// answer is as durable as before when the user is told of it; a crash
// before then loses an answer nobody was told was kept, and the question
// is asked again.
//
// The answer waits for no longer than the service's hold (Config.AnswerHold),
// and no one else sees the conversation while it waits: every command, page
// and read of the record takes c.mu through lock, which writes a held answer first. Only the
// turn's own primitives, which record something at once, take c.mu
// without it, so that the answer goes with what they record. A model call
// writes the answer before it starts, as it will take long; so does a
// tool, which may act on the world: no effect may follow an answer that a
// crash could still take back.

// DefaultAnswerHold is how long an answer waits for the turn's next record
// before it is written alone, unless Config.AnswerHold says otherwise. A turn
// that goes on from an answer to its next question takes some tens of
// microseconds; one that takes longer than this is doing something else.
const DefaultAnswerHold = time.Millisecond

// heldAnswer is an answer handed to its turn and not yet written.
type heldAnswer struct {
	node  tree.Node // the response, given its id once written
	asked *waiter   // what waited for it
	// recorded is the answer as its record decodes (asRecorded), for the
	// page to show once it is written, when known.
	recorded elicit.Response
	known    bool
	timer    *time.Timer
	done     chan struct{} // closed when the write is over, err set
	err      error
}

// wait returns once the answer is written, with the write's error.
func (h *heldAnswer) wait() error {
	<-h.done
	return h.err
}

// take returns the held answer to elicit eid, which no one has taken from
// its waiter: the waiter was made when the conversation was loaded, and the
// answer came before the replay of its turn asked for it. h may be nil.
func (h *heldAnswer) take(eid string) (elicit.Response, bool) {
	if h == nil || h.node.Ref != eid {
		return elicit.Response{}, false
	}
	select {
	case resp := <-h.asked.answer:
		return resp, true
	default:
		return elicit.Response{}, false
	}
}

// lock takes c.mu, writing a held answer and a held tool record first.
func (c *conversation) lock() {
	c.mu.Lock()
	c.questions.flushLocked()
	c.records.flushLocked(c)
}

// flush writes a held answer and a held tool record.
func (c *conversation) flush() {
	c.lock()
	c.mu.Unlock()
}

// flushLocked writes a held answer alone. c.mu is held.
func (qs *questions) flushLocked() {
	h := qs.unholdLocked()
	if h == nil {
		return
	}
	n, err := qs.c.writeLocked(context.Background(), h.node, tree.AppendOptions{})
	h.node.ID = n.ID
	qs.settleLocked(h, err)
}

// unholdLocked takes the held answer, if any, for its writer, which
// settles it once written. c.mu is held.
func (qs *questions) unholdLocked() *heldAnswer {
	h := qs.held
	if h != nil {
		qs.held = nil
		h.timer.Stop()
	}
	return h
}

// takeHeldLocked returns the held answer to eid, for a replay that asks
// for it after it came (heldAnswer.take). c.mu is held.
func (qs *questions) takeHeldLocked(eid string) (elicit.Response, bool) {
	return qs.held.take(eid)
}

// deliverLocked hands resp to the turn waiting on the pending request req
// and sees to its record, as the turn's placement says: the flow's is held
// to be written with the turn's next record (holdLocked), a side turn's is
// written at once (deliverAsideLocked). The caller waits for the write
// without c.mu. c.mu is held.
func (qs *questions) deliverLocked(req elicit.Request, resp elicit.Response) (*heldAnswer, error) {
	w, ok := qs.pending[req.ID]
	if !ok {
		return nil, qs.notPendingLocked(req.ID)
	}
	qs.flushLocked() // one at a time
	return w.by.place.deliver(w.by, w, req, resp)
}

// holdLocked hands resp to the turn of the flow waiting on w and holds it
// to be written with what the turn records next. c.mu is held.
func (qs *questions) holdLocked(w *waiter, req elicit.Request, resp elicit.Response) *heldAnswer {
	h := &heldAnswer{
		node:  tree.Node{Conversation: qs.c.conv.ID, Kind: tree.ElicitResponse, Ref: req.ID, Agent: req.Agent, Payload: tree.MustEncode(resp)},
		asked: w,
		done:  make(chan struct{}),
	}
	h.recorded, h.known = asRecorded(resp)
	qs.held = h
	h.timer = time.AfterFunc(qs.c.svc.answerHold, qs.c.flush)
	delete(qs.pending, req.ID)
	delete(qs.rejected, req.ID)
	qs.untimeLocked(req.ID, w)
	w.answer <- resp
	return h
}

// deliverAsideLocked writes the answer to side turn t's question at once,
// on its side branch, and hands it to the turn. It is not held: a side
// turn's next record takes its own commit, and side questions are few.
// c.mu is held.
func (qs *questions) deliverAsideLocked(t *turn, w *waiter, req elicit.Request, resp elicit.Response) (*heldAnswer, error) {
	h := &heldAnswer{asked: w, done: make(chan struct{})}
	close(h.done)
	n, err := t.appendLocked(context.Background(), tree.Node{Kind: tree.ElicitResponse, Ref: req.ID, Agent: req.Agent, Payload: tree.MustEncode(resp)})
	if err != nil {
		return nil, err
	}
	delete(qs.pending, req.ID)
	delete(qs.rejected, req.ID)
	qs.untimeLocked(req.ID, w)
	rec, known := asRecorded(resp)
	qs.answeredLocked(w, n.ID, rec, known)
	w.answer <- resp
	return h, nil
}

// asRecorded returns resp as decoding its record gives it back, so that a
// page shows an answer just given as it shows one read from the record,
// without decoding the record: its content compacted, with <, > and &
// escaped, as encoding/json writes a raw value. It reports false for text
// that is not UTF-8, which encoding changes byte by byte, and for content
// that does not encode; the record is decoded then.
func asRecorded(resp elicit.Response) (elicit.Response, bool) {
	if !utf8.ValidString(string(resp.Action)) || !utf8.ValidString(resp.Text) {
		return elicit.Response{}, false
	}
	if len(resp.Content) > 0 {
		content, err := json.Marshal(resp.Content)
		if err != nil {
			return elicit.Response{}, false
		}
		resp.Content = content
	}
	return resp, true
}

// settleLocked reports how writing a held answer went to whoever handed it
// in and, if it was written, shows it answered. If it could not be
// written, the turn that already has it cannot go on: its record would not
// say why it went where it goes. c.mu is held.
func (qs *questions) settleLocked(h *heldAnswer, err error) {
	h.err = err
	close(h.done)
	if err != nil {
		qs.c.svc.log.Error("record an answer", "conversation", qs.c.conv.ID, "elicit", h.node.Ref, "err", err)
		if t := qs.c.current; t != nil {
			t.cancel(fmt.Errorf("the answer could not be recorded: %w", err))
		}
		return
	}
	qs.answeredLocked(h.asked, h.node.ID, h.recorded, h.known)
	qs.broadcastItemLocked(h.node.Ref)
	qs.broadcastQueueLocked("") // each moves up the queue
	qs.c.page.broadcastStatusLocked()
}

// A turn that runs a program's tool call (toolcall.go) ends as soon as its
// tool returns: its reply is the tool's outcome, and nothing runs between
// the two, no model call and no other tool. So the tool's record is held
// and written with the reply, in one commit, as an answer is written with
// the record after it. The promise is kept: nothing acts on the record
// before it is written. The program hears of the outcome only from the
// reply, and whoever looks at the conversation meanwhile (lock), a model
// call or another tool (flush) has the record written first. A crash
// before the commit loses a tool's record that nobody was told of, as a
// crash during its own commit would, and the turn resumes from its record:
// the tool runs again.

// heldRecord is a call turn's tool records, not yet written: its tool's,
// after those of the tools it called itself, in the order they returned.
type heldRecord struct {
	nodes []tree.Node
}

// hold holds n, a tool record of the turn of the flow that runs a call, to
// be written with the conversation's next record. c.mu is held.
func (r *heldRecord) hold(n tree.Node) { r.nodes = append(r.nodes, n) }

// take returns the held records, if any, for their writer. c.mu is held.
func (r *heldRecord) take() []tree.Node {
	nodes := r.nodes
	r.nodes = nil
	return nodes
}

// flushLocked writes the held records alone. A record that cannot be
// written stops the turn, as an answer that cannot be: its record would
// not say what its tool returned. c.mu is held.
func (r *heldRecord) flushLocked(c *conversation) {
	for _, n := range r.take() {
		if _, err := c.writeLocked(context.Background(), n, tree.AppendOptions{}); err != nil {
			c.svc.log.Error("record a tool call", "conversation", c.conv.ID, "call", n.Ref, "err", err)
			if t := c.current; t != nil {
				t.cancel(fmt.Errorf("the tool call could not be recorded: %w", err))
			}
			return
		}
	}
}
