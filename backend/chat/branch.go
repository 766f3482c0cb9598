package chat

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/sweatpants-go/sweatpants/backend/apperr"
	"github.com/sweatpants-go/sweatpants/backend/durable"
	"github.com/sweatpants-go/sweatpants/backend/elicit"
	"github.com/sweatpants-go/sweatpants/backend/tree"
)

// The conversation is a tree. Editing an earlier message adds a sibling of
// that message and continues from it; changing an earlier answer adds a
// sibling of that answer and resumes the turn from it. Nothing is deleted:
// the old branch stays, and the user can switch back to it, where a question
// that was waiting is waiting again.

// branchOf places an item among its alternatives, or returns nil when it
// has none. For a question it is the answer on the path that counts, which
// answer finds.
func (l *conversation) branchOf(it *Item, answer func(eid string) (tree.Node, bool)) *Branch {
	n, ok := l.idx.Node(it.ID)
	if !ok {
		return nil
	}
	if n.Kind == tree.ElicitRequest {
		if n, ok = answer(n.Ref); !ok {
			return nil
		}
	} else if n.Kind != tree.UserMessage {
		return nil
	}
	alts := l.idx.Alternatives(n)
	if len(alts) < 2 {
		return nil
	}
	i := slices.Index(alts, n.ID)
	b := &Branch{Index: i + 1, Count: len(alts)}
	if i > 0 {
		b.Prev = alts[i-1]
	}
	if i+1 < len(alts) {
		b.Next = alts[i+1]
	}
	return b
}

// responseNodeLocked finds the answer to elicit eid on the path.
func (l *conversation) responseNodeLocked(eid string) (tree.Node, bool) {
	return l.idx.NewestOnPath(l.path, eid, tree.ElicitResponse)
}

// branchNode returns node id if it is a user message or an answer of this
// conversation: the nodes a branch can start from.
func (l *conversation) branchNode(id int64) (tree.Node, error) {
	n, ok := l.idx.Node(id)
	if !ok || (n.Kind != tree.UserMessage && n.Kind != tree.ElicitResponse) {
		return tree.Node{}, apperr.Errorf(apperr.NotFound, "There is no message or answer %d in this conversation.", id)
	}
	return n, nil
}

// Edit sends text in place of the earlier user message msgID: a new branch
// beside it, where a new turn starts. The old branch is kept. A running turn
// is parked on its branch first.
func (s *Service) Edit(ctx context.Context, session, id string, msgID int64, text string) error {
	text, err := checkMessage(text)
	if err != nil {
		return err
	}
	return s.resend(ctx, session, id, func(l *conversation) (tree.Node, string, error) {
		orig, ok := l.idx.Node(msgID)
		if !ok || orig.Kind != tree.UserMessage {
			return tree.Node{}, "", apperr.Errorf(apperr.NotFound, "There is no message %d in this conversation.", msgID)
		}
		return orig, text, nil
	})
}

// Retry sends again, unchanged, the user message whose turn ended in reply
// (its answer, its error, or where it was stopped): a new branch beside the
// old one, where the agent takes the turn anew. The old branch is kept.
func (s *Service) Retry(ctx context.Context, session, id string, reply int64) error {
	return s.resend(ctx, session, id, func(l *conversation) (tree.Node, string, error) {
		n, ok := l.idx.Node(reply)
		if !ok || (n.Kind != tree.AssistantMessage && n.Kind != tree.TurnError && n.Kind != tree.Stopped) {
			return tree.Node{}, "", apperr.Errorf(apperr.NotFound, "There is no reply %d in this conversation.", reply)
		}
		for n.Kind != tree.UserMessage {
			if n, ok = l.idx.Node(n.Parent); !ok {
				return tree.Node{}, "", apperr.Errorf(apperr.NotFound, "The message that reply %d answers is no longer in this conversation.", reply)
			}
		}
		var m tree.Message
		if err := json.Unmarshal(n.Payload, &m); err != nil {
			return tree.Node{}, "", fmt.Errorf("read message %d: %w", n.ID, err)
		}
		return n, m.Text, nil
	})
}

// resend starts a new branch beside a user message, with a message in its
// place and a new turn on it; pick names the message and the text, with
// the conversation locked. A running turn is parked on its branch first.
func (s *Service) resend(ctx context.Context, session, id string, pick func(*conversation) (tree.Node, string, error)) error {
	l, err := s.acquire(ctx, session, id)
	if err != nil {
		return err
	}
	defer s.release(l)
	a, ok := s.agents.Get(l.conv.Agent)
	if !ok {
		return apperr.Errorf(apperr.Invalid, "This conversation's agent %q is not available.", l.conv.Agent)
	}
	l.lock()
	defer l.mu.Unlock()
	orig, text, err := pick(l)
	if err != nil {
		return err
	}
	l.parkLocked()
	msg, err := l.appendLocked(ctx, tree.Node{Parent: orig.Parent, Kind: tree.UserMessage, Payload: tree.MustEncode(tree.Message{Text: text})},
		tree.AppendOptions{Fork: true, Log: &tree.Move{Action: tree.ActEdit, Detail: title(text)}})
	if err != nil {
		return err
	}
	s.startTurnLocked(l, a, msg, text, durable.Journal{})
	l.broadcastStatusLocked()
	return nil
}

// Switch makes the branch through node (a message or an answer, usually an
// alternative of the one shown) the current one: HEAD moves to where that
// branch was left, and a turn that was waiting there waits again.
func (s *Service) Switch(ctx context.Context, session, id string, node int64) error {
	l, err := s.acquire(ctx, session, id)
	if err != nil {
		return err
	}
	defer s.release(l)
	l.lock()
	defer l.mu.Unlock()
	n, err := l.branchNode(node)
	if err != nil {
		return err
	}
	return s.moveHeadLocked(ctx, l, l.idx.NewestUnder(n.ID), tree.Move{Action: tree.ActSwitch, Detail: describeNode(n)})
}

// moveHeadLocked moves HEAD to node to, parking the running turn, and
// resumes the turn waiting there, if any. l.mu is held.
func (s *Service) moveHeadLocked(ctx context.Context, l *conversation, to int64, move tree.Move) error {
	if to == l.conv.Head {
		return nil
	}
	l.parkLocked()
	if _, err := s.store.MoveHead(ctx, l.conv.ID, to, move); err != nil {
		return err
	}
	l.conv.Head = to
	l.path = l.idx.PathTo(to)
	s.resumeLocked(l)
	l.resyncLocked()
	return nil
}

// ChangeAnswer answers again the already answered question eid on HEAD's
// branch: the new answer is a sibling of the old one, and the turn that
// asked resumes from it on the new branch. The old branch is kept.
func (s *Service) ChangeAnswer(ctx context.Context, session, id, eid string, a Answer) error {
	l, err := s.acquire(ctx, session, id)
	if err != nil {
		return err
	}
	defer s.release(l)
	l.lock()
	defer l.mu.Unlock()
	old, ok := l.responseNodeLocked(eid)
	if !ok {
		if l.isPending(eid) {
			return apperr.Errorf(apperr.Conflict, "That question has not been answered yet; answer it instead.")
		}
		return apperr.Errorf(apperr.NotFound, "There is no answered question %q in this conversation.", eid)
	}
	req := l.requestLocked(eid)
	resp, problem := checkAnswer(l.svc.kinds, req, a)
	if problem != nil {
		return l.rejectLocked(req, a.Form, problem)
	}
	l.parkLocked()
	delete(l.rejected, eid)
	if _, err := l.appendLocked(ctx, tree.Node{Parent: old.Parent, Kind: tree.ElicitResponse, Ref: eid, Agent: req.Agent, Payload: tree.MustEncode(resp)},
		tree.AppendOptions{Fork: true, Log: &tree.Move{Action: tree.ActRewind, Detail: "changed the answer to “" + req.Message + "”"}}); err != nil {
		return err
	}
	s.resumeLocked(l)
	l.broadcastStatusLocked()
	return nil
}

// describeNode words a branch point for the reflog.
func describeNode(n tree.Node) string {
	if n.Kind == tree.UserMessage {
		var m tree.Message
		json.Unmarshal(n.Payload, &m)
		return title(m.Text)
	}
	var r elicit.Response
	json.Unmarshal(n.Payload, &r)
	return "answer: " + string(r.Action)
}
