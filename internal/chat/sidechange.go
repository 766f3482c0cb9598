package chat

import (
	"context"
	"slices"

	"github.com/sweatpants-go/sweatpants/elicit"
	"github.com/sweatpants-go/sweatpants/internal/apperr"
	"github.com/sweatpants-go/sweatpants/internal/feed"
	"github.com/sweatpants-go/sweatpants/internal/tree"
)

// Changing a side question's answer. A side turn's question is answered on
// its side branch, not HEAD's, so it is found there: among the side
// questions the page shows, in the version of their turn it shows. The new
// answer forks the side branch beside the old one and the side question's
// turn runs again from it, a new version of the thread from there on: the
// flow, HEAD and whatever waits on HEAD's branch stay as they are. The old
// version stays in the record (the inspector shows it); the page shows the
// newest (tree.Index.SideTip). Follow-ups asked after the old version
// belonged to it and go with it, as the messages after an edited one do.

// sideAnswerLocked finds the answer to eid given in a side question's turn
// the page shows: the side question and the answer's node. c.mu is held.
func (c *conversation) sideAnswerLocked(eid string) (q, answer tree.Node, ok bool) {
	for _, id := range c.idx.WithRef(eid) {
		n, _ := c.idx.Node(id)
		if n.Kind != tree.ElicitResponse {
			continue
		}
		q, ok := c.idx.SideRoot(n)
		if !ok || !c.shownSideLocked(q) {
			continue
		}
		// The answer of the version shown, not of one before it.
		if c.idx.PathTo(c.idx.SideTip(q.ID)).Contains(n.ID) {
			return q, n, true
		}
	}
	return tree.Node{}, tree.Node{}, false
}

// shownSideLocked reports whether the page shows side question q: it is in
// the thread of a node of HEAD's branch, in the versions of its questions
// the page shows. c.mu is held.
func (c *conversation) shownSideLocked(q tree.Node) bool {
	it, ok := c.reader().Side(q)
	if !ok || !c.path.Contains(it.Anchor) {
		return false
	}
	return slices.ContainsFunc(c.idx.SideThread(it.Anchor), func(n tree.Node) bool { return n.ID == q.ID })
}

// changeAsideLocked answers again eid, a side turn's question already
// answered, and runs the side question's turn again from the new answer.
// It reports false when eid is no such question. c.mu is held.
func (s *Service) changeAsideLocked(ctx context.Context, c *conversation, eid string, a Answer) (bool, error) {
	q, old, ok := c.sideAnswerLocked(eid)
	if !ok {
		return false, nil
	}
	asst, ok := s.agents.Get(c.conv.Agent)
	if !ok {
		return true, apperr.Errorf(apperr.Invalid, "This conversation's agent %q is not available.", c.conv.Agent)
	}
	reqNode, ok := c.idx.Node(old.Parent)
	if !ok || reqNode.Kind != tree.ElicitRequest || reqNode.Ref != eid {
		// An answer hangs from its question, on a side branch as anywhere.
		reqNode, ok = c.idx.NewestOnPath(c.idx.PathTo(old.ID), eid, tree.ElicitRequest)
		if !ok {
			return true, apperr.Errorf(apperr.NotFound, "There is no answered question %q in this conversation.", eid)
		}
	}
	req, err := tree.Decode[elicit.Request](reqNode)
	if err != nil {
		return true, err
	}
	resp, problem, err := c.questions.checkLocked(ctx, req, a)
	if err != nil {
		return true, err
	}
	if problem != nil {
		err := c.questions.rejectLocked(req, a.Form, problem)
		c.broadcastSideLocked(q) // the refusal shows in the side question's place
		return true, err
	}
	// The side turns under q are of the version being replaced: q's own
	// (it may still work after the old answer) and a follow-up's. Each
	// stops where it is, its record kept, as a turn of the flow is parked
	// when an answer of its branch changes.
	for id, t := range c.sides {
		if c.idx.Under(id, q.ID) {
			t.cancel(errParked)
			delete(c.sides, id)
			c.questions.withdrawLocked(t.place)
		}
	}
	c.questions.answeredAgainLocked(eid)
	n, err := c.appendLocked(ctx, tree.Node{Parent: old.Parent, Kind: tree.ElicitResponse, Ref: eid, Agent: req.Agent, Payload: tree.MustEncode(resp)},
		tree.AppendOptions{Fork: true, Aside: true, Log: &tree.Move{Action: tree.ActRewind, Detail: "changed the answer to “" + req.Message + "”, on the side"}})
	if err != nil {
		return true, err
	}
	s.rerunSideLocked(c, asst, q, n.ID)
	// The old version's follow-ups leave the page with it.
	c.page.hub.ResyncLocked()
	return true, nil
}

// broadcastSideLocked re-sends side question q's item. c.mu is held.
func (c *conversation) broadcastSideLocked(q tree.Node) {
	c.page.hub.ShowLocked(func() (feed.Change, bool) {
		it, ok := c.reader().Side(q)
		return feed.Change{Item: &it}, ok
	})
}
