package chat

import (
	"cmp"
	"slices"

	"github.com/sweatpants-go/sweatpants/elicit"
	"github.com/sweatpants-go/sweatpants/internal/tree"
)

// Questions. The elicits a turn waits on are pending, in the order they
// were asked: the first is the one to answer now, the rest wait their turn.
// Their requests and answers are found on HEAD's branch through the tree's
// index.

// waiter is an elicit waiting for its answer.
type waiter struct {
	node     int64          // the request's node
	req      elicit.Request // as recorded
	answer   chan elicit.Response
	progress func(elicit.Request, elicit.Progress) // the asker's listener, if any
	stage    *elicit.Progress                      // the last progress reported
	reports  progressLimit                         // when the last progress reports came (progress.go)
	// by is the turn that asks: where it is placed says where the
	// question shows and how its answer is recorded.
	by *turn
}

func newWaiter(by *turn, node int64, req elicit.Request) *waiter {
	return &waiter{node: node, req: req, answer: make(chan elicit.Response, 1), by: by}
}

func (c *conversation) isPending(ref string) bool {
	_, ok := c.pending[ref]
	return ok
}

// decoded returns the request of node n if c holds it decoded: a pending
// one, or the one answered last. c.mu is held.
func (c *conversation) decoded(n tree.Node) (elicit.Request, bool) {
	for _, w := range []*waiter{c.pending[n.Ref], c.lastAnswered} {
		if w != nil && w.node == n.ID {
			return w.req, true
		}
	}
	return elicit.Request{}, false
}

// queueLocked returns the pending elicits of the path in the order they
// were asked: the first is the one to answer now, the rest wait their
// turn. c.mu is held.
//
// It costs the number of pending elicits, not the length of the path: a
// request asked earlier has a smaller node id, and so does every node of
// the path nearer the root, so the path is sorted by id.
func (c *conversation) queueLocked() []string {
	if len(c.pending) == 0 {
		return nil
	}
	type asked struct {
		node int64
		ref  string
	}
	q := make([]asked, 0, len(c.pending))
	for ref, w := range c.pending {
		if c.path.Contains(w.node) {
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
func (c *conversation) broadcastQueueLocked(skip string) {
	for _, eid := range c.queueLocked() {
		if eid != skip {
			c.broadcastItemLocked(eid)
		}
	}
}

func (c *conversation) requestLocked(eid string) elicit.Request {
	if w := c.pending[eid]; w != nil {
		return w.req
	}
	n, _ := c.requestNodeLocked(eid)
	req, _ := tree.Decode[elicit.Request](n)
	return req
}

// requestNodeLocked finds the request of elicit eid on the path.
func (c *conversation) requestNodeLocked(eid string) (tree.Node, bool) {
	return c.idx.NewestOnPath(c.path, eid, tree.ElicitRequest)
}

// responseLocked returns the recorded answer to elicit eid on the path.
func (c *conversation) responseLocked(eid string) (elicit.Response, bool) {
	n, ok := c.responseNodeLocked(eid)
	if !ok {
		return elicit.Response{}, false
	}
	resp, _ := tree.Decode[elicit.Response](n)
	return resp, true
}

// responseNodeLocked finds the answer to elicit eid on the path.
func (c *conversation) responseNodeLocked(eid string) (tree.Node, bool) {
	return c.idx.NewestOnPath(c.path, eid, tree.ElicitResponse)
}

// elicitItemLocked builds the item of elicit eid on the path as the page
// shows it, looking only at the nodes that concern it.
func (c *conversation) elicitItemLocked(eid string) (Item, bool) {
	req, ok := c.requestNodeLocked(eid)
	if !ok {
		return Item{}, false
	}
	nodes := []tree.Node{req}
	if resp, ok := c.responseNodeLocked(eid); ok {
		nodes = append(nodes, resp)
	}
	items := buildItems(nodes, c)
	if len(items) == 0 {
		return Item{}, false
	}
	it := items[0]
	c.liveLocked(it.Elicit)
	it.Branch = c.branchOf(&it, c.responseNodeLocked)
	return it, true
}

// liveLocked adds to e what only the running conversation knows: the last
// submission refused, the progress its implementation reported, and its
// place in the queue of questions. c.mu is held.
func (c *conversation) liveLocked(e *ElicitView) {
	eid := e.Request.ID
	if r := c.rejected[eid]; r != nil {
		e.Errors, e.Values, e.Problem = r.Errors, r.Values, r.Problem
	}
	w := c.pending[eid]
	if w == nil {
		return
	}
	e.Stage = w.stage
	q := c.queueLocked()
	e.Position, e.Queued = slices.Index(q, eid)+1, len(q)
}

// broadcastItemLocked re-sends the item of elicit eid to subscribers: a
// pending one where the turn that asks shows it, any other on the path.
func (c *conversation) broadcastItemLocked(eid string) {
	if w := c.pending[eid]; w != nil {
		w.by.place.showQuestion(w.by, w)
		return
	}
	if it, ok := c.elicitItemLocked(eid); ok {
		c.broadcastLocked(Change{Item: &it})
	}
}
