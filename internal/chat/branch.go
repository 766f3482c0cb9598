package chat

import (
	"context"
	"fmt"
	"slices"

	"github.com/sweatpants-go/sweatpants/elicit"
	"github.com/sweatpants-go/sweatpants/internal/apperr"
	"github.com/sweatpants-go/sweatpants/internal/durable"
	"github.com/sweatpants-go/sweatpants/internal/history"
	"github.com/sweatpants-go/sweatpants/internal/inbound"
	"github.com/sweatpants-go/sweatpants/internal/tree"
	"github.com/sweatpants-go/sweatpants/internal/words"
)

// The conversation is a tree. Editing an earlier message adds a sibling of
// that message and continues from it; changing an earlier answer adds a
// sibling of that answer and resumes the turn from it. Nothing is deleted:
// the old branch stays, and the user can switch back to it, where a question
// that was waiting is waiting again.

// branchNode returns node id if it is a user message or an answer of this
// conversation: the nodes a branch can start from.
func (c *conversation) branchNode(id int64) (tree.Node, error) {
	n, ok := c.idx.Node(id)
	if !ok || (n.Kind != tree.UserMessage && n.Kind != tree.ElicitResponse) {
		return tree.Node{}, apperr.Errorf(apperr.NotFound, "There is no message or answer %d in this conversation.", id)
	}
	return n, nil
}

// Edit sends m in place of the earlier user message msgID: a new branch
// beside it, where a new turn starts, its message with m's words and
// exactly m's files (the sender's own, as SendMessage takes them). The old
// branch is kept with its own. A running turn is parked on its branch
// first. Invalid for a message with neither words nor files, or overlong.
func (s *Service) Edit(ctx context.Context, session, id string, msgID int64, m inbound.Message) error {
	m, err := m.Checked()
	if err != nil {
		return err
	}
	return s.resend(ctx, session, id, tree.ActEdit, func(c *conversation) (tree.Node, inbound.Message, error) {
		orig, ok := c.idx.Node(msgID)
		if !ok || tree.AsFlow(orig.Kind) != tree.UserMessage {
			return tree.Node{}, inbound.Message{}, apperr.Errorf(apperr.NotFound, "There is no message %d in this conversation.", msgID)
		}
		return orig, m, nil
	})
}

// Retry takes again the turn that ended in reply. A turn that failed on a
// model call resumes from just before that call, on a new branch beside the
// failed one: everything it recorded before — the user's answers among it —
// is replayed, and only the model is called again. Any other turn (an
// answer, a stop, another failure, a turn whose record its changed code no
// longer replays) starts anew from the user message, sent again unchanged
// on a new branch. The old branch is kept either way.
func (s *Service) Retry(ctx context.Context, session, id string, reply int64) error {
	resumed := false
	err := s.with(ctx, session, id, func(c *conversation) error {
		failed, ok := c.failedCallLocked(reply)
		if !ok {
			return nil
		}
		resumed = true
		return s.moveHeadLocked(ctx, c, failed.Parent, tree.Move{Action: tree.ActRetry, Detail: "the model call that failed"})
	})
	if err != nil || resumed {
		return err
	}
	return s.resend(ctx, session, id, tree.ActRetry, func(c *conversation) (tree.Node, inbound.Message, error) {
		n, ok := c.idx.Node(reply)
		if k := tree.AsFlow(n.Kind); !ok || (k != tree.AssistantMessage && k != tree.TurnError && k != tree.Stopped) {
			return tree.Node{}, inbound.Message{}, apperr.Errorf(apperr.NotFound, "There is no reply %d in this conversation.", reply)
		}
		for tree.AsFlow(n.Kind) != tree.UserMessage {
			if n, ok = c.idx.Node(n.Parent); !ok {
				return tree.Node{}, inbound.Message{}, apperr.Errorf(apperr.NotFound, "The message that reply %d answers is no longer in this conversation.", reply)
			}
		}
		m, err := tree.Decode[tree.Message](n)
		if err != nil {
			return tree.Node{}, inbound.Message{}, fmt.Errorf("read message %d: %w", n.ID, err)
		}
		return n, inbound.Message{Text: m.Text, Attachments: m.Attachments}, nil // sent again as it was, files and all
	})
}

// failedCallLocked returns the model call that turn end reply failed on:
// the nearest sample node before it, within its turn, when that call
// recorded an error. c.mu is held.
func (c *conversation) failedCallLocked(reply int64) (tree.Node, bool) {
	n, ok := c.idx.Node(reply)
	if !ok || n.Kind != tree.TurnError {
		return tree.Node{}, false
	}
	if m, err := tree.Decode[tree.Message](n); err != nil || m.Diverged {
		return tree.Node{}, false // its record would diverge again
	}
	for ok && n.Kind != tree.UserMessage {
		if n.Kind == tree.Sample {
			rec, err := tree.Decode[tree.SampleRecord](n)
			return n, err == nil && rec.Error != ""
		}
		n, ok = c.idx.Node(n.Parent)
	}
	return tree.Node{}, false
}

// resend starts a new branch beside a user message, with a message in its
// place and a new turn on it; pick names the message and what is sent in
// its place, with the conversation locked; action is the reflog's word for it (an edit, a
// retry). A running turn is parked on its branch first.
func (s *Service) resend(ctx context.Context, session, id string, action tree.Action, pick func(*conversation) (tree.Node, inbound.Message, error)) error {
	return s.with(ctx, session, id, func(c *conversation) error {
		a, ok := s.agents.Get(c.conv.Agent)
		if !ok {
			return apperr.Errorf(apperr.Invalid, "This conversation's agent %q is not available.", c.conv.Agent)
		}
		orig, m, err := pick(c)
		if err != nil {
			return err
		}
		c.parkLocked()
		msg, err := c.appendLocked(ctx, tree.Node{Parent: orig.Parent, Kind: tree.UserMessage, Payload: tree.MustEncode(tree.Message{Text: m.Text, History: history.Latest, Attachments: m.Attachments})},
			tree.AppendOptions{Fork: true, Log: &tree.Move{Action: action, Detail: words.Title(m.Text)}})
		if err != nil {
			return err
		}
		c.retitleLocked(ctx)
		s.startTurnLocked(c, a, msg, m.Text, durable.Journal{})
		c.page.broadcastStatusLocked()
		return nil
	})
}

// Switch makes the branch through node (a message or an answer, usually an
// alternative of the one shown) the current one: HEAD moves to where that
// branch was left, and a turn that was waiting there waits again.
func (s *Service) Switch(ctx context.Context, session, id string, node int64) error {
	return s.with(ctx, session, id, func(c *conversation) error {
		n, err := c.branchNode(node)
		if err != nil {
			return err
		}
		return s.moveHeadLocked(ctx, c, c.idx.FlowTip(n.ID), tree.Move{Action: tree.ActSwitch, Detail: "to " + words.Node(n)})
	})
}

// moveHeadLocked moves HEAD to node to, parking the running turn, and
// resumes the turn waiting there, if any. c.mu is held.
func (s *Service) moveHeadLocked(ctx context.Context, c *conversation, to int64, move tree.Move) error {
	if to == c.conv.Head {
		return nil
	}
	c.parkLocked()
	if _, err := s.store.MoveHead(ctx, c.conv.ID, to, move); err != nil {
		return err
	}
	c.conv.Head = to
	c.path = c.idx.PathTo(to)
	c.retitleLocked(ctx)
	s.resumeLocked(c)
	c.page.hub.ResyncLocked()
	return nil
}

// ChangeAnswer answers again the already answered question eid on HEAD's
// branch: the new answer is a sibling of the old one, and the turn that
// asked resumes from it on the new branch. The old branch is kept. A side
// question's turn is run again from the new answer instead, with HEAD left
// where it is (sidechange.go).
func (s *Service) ChangeAnswer(ctx context.Context, session, id, eid string, a Answer) error {
	return s.with(ctx, session, id, func(c *conversation) error {
		old, ok := c.questions.responseNodeLocked(eid)
		if _, aside := c.idx.SideRoot(old); ok && aside {
			return apperr.Errorf(apperr.Conflict, "That answer was given in a side thread the conversation went on from: go back to the flow to change it there.")
		}
		if !ok {
			if c.questions.IsPending(eid) {
				return apperr.Errorf(apperr.Conflict, "That question has not been answered yet; answer it instead.")
			}
			if found, err := s.changeAsideLocked(ctx, c, eid, a); found {
				return err // a side turn's question, answered on its side branch
			}
			return apperr.Errorf(apperr.NotFound, "There is no answered question %q in this conversation.", eid)
		}
		req := c.questions.requestLocked(eid)
		resp, problem, err := c.questions.checkLocked(ctx, req, a)
		if err != nil {
			return err
		}
		if problem != nil {
			return c.questions.rejectLocked(req, a.Form, problem)
		}
		return c.changeLocked(ctx, eid, resp)
	})
}

// changeLocked records resp as a new answer to the answered elicit eid, on
// a new branch from where it was asked, and resumes the turn there. c.mu
// is held.
func (c *conversation) changeLocked(ctx context.Context, eid string, resp elicit.Response) error {
	old, ok := c.questions.responseNodeLocked(eid)
	if !ok {
		return apperr.Errorf(apperr.NotFound, "There is no answered question %q in this conversation.", eid)
	}
	req := c.questions.requestLocked(eid)
	if err := c.svc.kinds.Check(req, resp); err != nil {
		return apperr.Errorf(apperr.Invalid, "That answer can't be accepted: %v.", err)
	}
	c.parkLocked()
	c.questions.answeredAgainLocked(eid)
	if _, err := c.appendLocked(ctx, tree.Node{Parent: old.Parent, Kind: tree.ElicitResponse, Ref: eid, Agent: req.Agent, Payload: tree.MustEncode(resp)},
		tree.AppendOptions{Fork: true, Log: &tree.Move{Action: tree.ActRewind, Detail: "changed the answer to “" + words.Title(req.Message) + "” to " + words.Answer(resp)}}); err != nil {
		return err
	}
	c.svc.resumeLocked(c)
	c.page.broadcastStatusLocked()
	return nil
}

// Recover makes the state of reflog entry `entry` HEAD again — a discarded
// branch included — with its suspended questions live again. An entry's
// state is the branch its move started, as far as it got (tree.RefEntry.State:
// a side question's brings back the flow beside it). A running turn is parked first.
func (s *Service) Recover(ctx context.Context, session, id string, entry int64) error {
	return s.holding(ctx, session, id, func(c *conversation) error {
		reflog, err := s.store.Reflog(ctx, id) // before the lock: a turn may record meanwhile
		if err != nil {
			return err
		}
		i := slices.IndexFunc(reflog, func(e tree.RefEntry) bool { return e.ID == entry })
		if i < 0 {
			return apperr.Errorf(apperr.NotFound, "There is no reflog entry %d in this conversation.", entry)
		}
		c.lock()
		defer c.mu.Unlock()
		// The entry says where HEAD went, once: not the entry recovered,
		// whose own detail may be a recovery's, and so on down.
		to, ok := c.idx.Node(c.idx.FlowTip(reflog[i].State()))
		if !ok {
			return apperr.Errorf(apperr.NotFound, "The state of reflog entry %d is no longer in this conversation (gc removed it).", entry)
		}
		return s.moveHeadLocked(ctx, c, to.ID, tree.Move{Action: tree.ActRecover, Detail: "back to " + words.Node(to)})
	})
}
