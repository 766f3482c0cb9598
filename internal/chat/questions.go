package chat

import (
	"cmp"
	"slices"

	"github.com/sweatpants-go/sweatpants/elicit"
	"github.com/sweatpants-go/sweatpants/internal/feed"
	"github.com/sweatpants-go/sweatpants/internal/inbound"
	"github.com/sweatpants-go/sweatpants/internal/pageview"
	"github.com/sweatpants-go/sweatpants/internal/tree"
)

// Questions. The elicits a turn waits on are pending, in the order they
// were asked: the first is the one to answer now, the rest wait their turn.
// Their requests and answers are found on HEAD's branch through the tree's
// index.

// questions are the conversation's questions: those pending, the answer
// held for the turn's next record (held.go), the one answered last, and
// the submissions refused (answer.go). They own these fields, which
// conversation's mu guards; they read the tree through c.
type questions struct {
	c        *conversation
	pending  map[string]*waiter              // elicit id → the request waiting on it
	rejected map[string]*pageview.ElicitView // the last rejected submission per elicit
	held     *heldAnswer                     // an answer handed to the turn and not yet written (held.go)
	// lastAnswered is the waiter answered last, whose request the pages
	// still show: kept for its decoded request; lastAnswer is its answer,
	// as recorded, which the pages show with it.
	lastAnswered *waiter
	lastAnswer   recordedAnswer
}

// recordedAnswer is an answer's node and the answer as decoding the node
// gives it (asRecorded).
type recordedAnswer struct {
	node int64
	resp elicit.Response
}

// waiter is an elicit waiting for its answer.
type waiter struct {
	node     int64          // the request's node
	req      elicit.Request // as recorded
	answer   chan elicit.Response
	progress func(elicit.Request, elicit.Progress) // the asker's listener, if any
	stage    *elicit.Progress                      // the last progress reported
	reports  inbound.ProgressLimit                 // when the last progress reports came (progress.go)
	reported inbound.Reported                      // the progress reported, for the answer's record (progress.go)
	// by is the turn that asks: where it is placed says where the
	// question shows and how its answer is recorded.
	by *turn
}

func newWaiter(by *turn, node int64, req elicit.Request) *waiter {
	return &waiter{node: node, req: req, answer: make(chan elicit.Response, 1), by: by}
}

// isPending reports whether a turn waits on elicit ref. c.mu is held.
func (qs *questions) IsPending(ref string) bool {
	_, ok := qs.pending[ref]
	return ok
}

// decoded returns the request of node n if c holds it decoded: a pending
// one, or the one answered last. c.mu is held.
func (qs *questions) Decoded(n tree.Node) (elicit.Request, bool) {
	for _, w := range []*waiter{qs.pending[n.Ref], qs.lastAnswered} {
		if w != nil && w.node == n.ID {
			return w.req, true
		}
	}
	return elicit.Request{}, false
}

// DecodedResponse returns the answer node n records if c holds it decoded:
// the answer given last. c.mu is held.
func (qs *questions) DecodedResponse(n tree.Node) (elicit.Response, bool) {
	if a := qs.lastAnswer; a.node != 0 && a.node == n.ID && n.Ref == qs.lastAnswered.req.ID {
		return a.resp, true
	}
	return elicit.Response{}, false
}

// answeredLocked makes w the waiter answered last, by the answer that node
// records, resp as recorded (asRecorded), if it is known; c.mu is held.
func (qs *questions) answeredLocked(w *waiter, node int64, resp elicit.Response, known bool) {
	qs.lastAnswered = w
	qs.lastAnswer = recordedAnswer{}
	if known {
		qs.lastAnswer = recordedAnswer{node: node, resp: resp}
	}
}

// queueLocked returns the pending elicits of the path in the order they
// were asked: the first is the one to answer now, the rest wait their
// turn. c.mu is held.
//
// It costs the number of pending elicits, not the length of the path: a
// request asked earlier has a smaller node id, and so does every node of
// the path nearer the root, so the path is sorted by id.
func (qs *questions) queueLocked() []string {
	if len(qs.pending) == 0 {
		return nil
	}
	type asked struct {
		node int64
		ref  string
	}
	q := make([]asked, 0, len(qs.pending))
	for ref, w := range qs.pending {
		if qs.c.path.Contains(w.node) {
			q = append(q, asked{w.node, ref})
		}
	}
	slices.SortFunc(q, func(a, b asked) int { return cmp.Compare(a.node, b.node) })
	refs := make([]string, len(q))
	for i, a := range q {
		refs[i] = a.ref
	}
	return refs
}

// broadcastQueueLocked re-sends every question in the queue but skip, whose
// place in it changed.
func (qs *questions) broadcastQueueLocked(skip string) {
	for _, eid := range qs.queueLocked() {
		if eid != skip {
			qs.broadcastItemLocked(eid)
		}
	}
}

func (qs *questions) requestLocked(eid string) elicit.Request {
	if w := qs.pending[eid]; w != nil {
		return w.req
	}
	n, _ := qs.requestNodeLocked(eid)
	req, _ := tree.Decode[elicit.Request](n)
	return req
}

// requestNodeLocked finds the request of elicit eid on the path.
func (qs *questions) requestNodeLocked(eid string) (tree.Node, bool) {
	return qs.c.idx.NewestOnPath(qs.c.path, eid, tree.ElicitRequest)
}

// responseLocked returns the recorded answer to elicit eid on the path.
func (qs *questions) responseLocked(eid string) (elicit.Response, bool) {
	n, ok := qs.responseNodeLocked(eid)
	if !ok {
		return elicit.Response{}, false
	}
	resp, _ := tree.Decode[elicit.Response](n)
	return resp, true
}

// responseNodeLocked finds the answer to elicit eid on the path.
func (qs *questions) responseNodeLocked(eid string) (tree.Node, bool) {
	return qs.c.idx.NewestOnPath(qs.c.path, eid, tree.ElicitResponse)
}

// liveLocked adds to e what only the running conversation knows: the last
// submission refused, the progress its implementation reported, and its
// place in the queue of questions. c.mu is held.
func (qs *questions) liveLocked(e *pageview.ElicitView) {
	eid := e.Request.ID
	if r := qs.rejected[eid]; r != nil {
		e.Errors, e.Values, e.Problem = r.Errors, r.Values, r.Problem
	}
	w := qs.pending[eid]
	if w == nil {
		return
	}
	e.Stage = w.stage
	q := qs.queueLocked()
	e.Position, e.Queued = slices.Index(q, eid)+1, len(q)
}

// broadcastItemLocked re-sends the item of elicit eid to subscribers: a
// pending one where the turn that asks shows it, any other on the path.
func (qs *questions) broadcastItemLocked(eid string) {
	if w := qs.pending[eid]; w != nil {
		w.by.place.showQuestion(w.by, w)
		return
	}
	qs.c.page.hub.ShowLocked(func() (feed.Change, bool) {
		it, ok := qs.c.reader().Question(eid)
		return feed.Change{Item: &it}, ok
	})
}

// waitLocked makes w the request pending for elicit eid. c.mu is held.
func (qs *questions) waitLocked(eid string, w *waiter) {
	qs.pending[eid] = w
	qs.timeLocked(eid, w)
}

// waiterLocked returns the request pending for elicit eid, if any. c.mu is
// held.
func (qs *questions) waiterLocked(eid string) *waiter { return qs.pending[eid] }

// waitedOnLocked reports how many requests are pending. c.mu is held.
func (qs *questions) waitedOnLocked() int { return len(qs.pending) }

// unaskLocked forgets the request pending for eid, whose record failed.
// c.mu is held.
func (qs *questions) unaskLocked(eid string) { delete(qs.pending, eid) }

// dropLocked forgets every pending request, as the conversation leaves
// memory: whoever loads it next waits on them again. c.mu is held.
func (qs *questions) dropLocked() { clear(qs.pending) }

// recordedLocked gives a pending request, n just recorded, its place in
// the queue, before anyone is told of it. c.mu is held.
func (qs *questions) recordedLocked(n tree.Node) {
	if w := qs.pending[n.Ref]; w != nil && n.Kind == tree.ElicitRequest {
		w.node = n.ID
	}
}

// answeredAgainLocked forgets the refused submission for eid, whose
// answer is being changed. c.mu is held.
func (qs *questions) answeredAgainLocked(eid string) { delete(qs.rejected, eid) }
