package chat

import (
	"context"

	"github.com/sweatpants-go/sweatpants/agents"
	"github.com/sweatpants-go/sweatpants/elicit"
	"github.com/sweatpants-go/sweatpants/internal/apperr"
	"github.com/sweatpants-go/sweatpants/internal/consent"
	"github.com/sweatpants-go/sweatpants/internal/durable"
	"github.com/sweatpants-go/sweatpants/internal/history"
	"github.com/sweatpants-go/sweatpants/internal/inbound"
	"github.com/sweatpants-go/sweatpants/internal/tree"
	"github.com/sweatpants-go/sweatpants/internal/words"
	"github.com/sweatpants-go/sweatpants/middleware"
)

// Side quests. While the agent waits on a question, the user may ask
// something else; a user may also open a thread beside any reply. Such a
// message is a side question: a turn of the conversation's assistant (its
// Side) on a side branch that hangs from a node of HEAD's branch but never
// becomes HEAD, so the flow is untouched: a question that waits stays
// pending and answerable. A side turn runs through the same middleware as
// any turn, may call tools, streams its reply into its place on the page
// and can be stopped. A follow-up hangs from the end of the side question
// before it, so the model sees the thread so far.

// side places a side turn on its side question's branch (placement.go):
// what it records hangs there, one node after the other, and what it
// streams and asks shows in the side question's place. Its progress and
// its waits on the model are in its record only.
type side struct {
	tip   int64  // the last node of its side branch, where the next one hangs
	reply string // its reply as it streams in
}

func (s *side) enter(t *turn) {
	t.conv.sides[t.id] = t
	t.conv.page.broadcastStatusLocked()
}

func (s *side) live(t *turn) bool { return t.conv.sides[t.id] == t }

func (s *side) run(ctx context.Context, a agents.Assistant, text string) (string, error) {
	return a.SideTurn()(ctx, text)
}

func (s *side) record(ctx context.Context, t *turn, n tree.Node, move *tree.Move) (tree.Node, error) {
	if n.Parent == 0 { // else beside a block the turn tried (fork.go)
		n.Parent = s.tip
	}
	n, err := t.conv.appendLocked(ctx, n, tree.AppendOptions{Fork: true, Aside: true, Log: move})
	if err == nil {
		s.tip = n.ID
	}
	return n, err
}

func (s *side) answered(t *turn, eid string) (elicit.Response, bool) {
	n, ok := t.conv.idx.NewestOnPath(t.conv.idx.PathTo(s.tip), eid, tree.ElicitResponse)
	if !ok {
		return elicit.Response{}, false
	}
	resp, err := tree.Decode[elicit.Response](n)
	return resp, err == nil
}

func (s *side) branch(t *turn) tree.Path { return t.conv.idx.PathTo(s.tip) }

func (s *side) choices(t *turn) *consent.Choices { return &t.choices }

// history is the model's context for side turn t: the conversation up to
// where the thread hangs, a note saying what the flow waits on, and the
// thread up to t's question.
func (s *side) history(t *turn, v int) []history.Message {
	return history.Side(t.conv.idx, t.id, v)
}

func (s *side) draft(*turn) string { return s.reply }

func (s *side) drafted(t *turn, delta string) {
	if delta == "" {
		s.reply = ""
		return // the call's record shows the side item again
	}
	s.reply += delta
	c := t.conv
	if q, ok := c.idx.Node(t.id); ok {
		c.broadcastSideLocked(q)
	}
}

func (s *side) notified(*turn, middleware.Progress) {}

func (s *side) asking(*turn) {}

func (s *side) waitOnModel(*turn) func() { return func() {} }

// showQuestion shows a side turn's question in its side question's place.
func (s *side) showQuestion(t *turn, w *waiter) {
	if n, ok := t.conv.idx.Node(w.node); ok {
		t.conv.broadcastSideLocked(n)
	}
}

func (s *side) deliver(t *turn, w *waiter, req elicit.Request, resp elicit.Response) (*heldAnswer, error) {
	return t.conv.questions.deliverAsideLocked(t, w, req, resp)
}

// end records the end of a side turn on its side branch, a reply as a
// SideReply; a side turn the service leaves at its shutdown is forgotten,
// to be resumed from its record.
func (s *side) end(ctx context.Context, t *turn, kind tree.Kind, m tree.Message) {
	c := t.conv
	if kind == "" {
		delete(c.sides, t.id)
		return
	}
	if kind == tree.AssistantMessage {
		kind = tree.SideReply
	}
	if _, err := t.endSideLocked(ctx, kind, m); err != nil {
		c.svc.log.Error("record the end of a side question", "conversation", c.conv.ID, "err", err)
	}
}

// waitingOnLocked returns the request the running turn waits on: the
// first in the queue when several are.
func (qs *questions) waitingOnLocked() (elicit.Request, bool) {
	if q := qs.queueLocked(); len(q) > 0 {
		return qs.requestLocked(q[0]), true
	}
	return elicit.Request{}, false
}

// sideQuestLocked records text as a side question in the thread asked from
// anchor and starts its turn. c.mu is held.
func (s *Service) sideQuestLocked(ctx context.Context, c *conversation, a agents.Assistant, anchor int64, text string) error {
	parent, err := c.threadTipLocked(ctx, anchor)
	if err != nil {
		return err
	}
	q, err := c.appendLocked(ctx, tree.Node{Parent: parent, Kind: tree.SideQuestion, Payload: tree.MustEncode(tree.Message{Text: text, History: history.Latest})},
		tree.AppendOptions{Fork: true, Aside: true, Log: &tree.Move{Action: tree.ActFork, Detail: words.Title(text)}})
	if err != nil {
		return err
	}
	s.startSideLocked(c, a, q, text, q.ID, durable.Journal{})
	return nil
}

// threadTipLocked returns where a new side question of the thread asked
// from anchor hangs: from the end of the thread's newest question, or from
// anchor when it has none. A side turn still working there is stopped
// first, as a new message stops the flow's turn, and one that lost its
// turn (the server stopped while it worked, and it could not resume) is
// ended as stopped, so the thread goes on from an end.
func (c *conversation) threadTipLocked(ctx context.Context, anchor int64) (int64, error) {
	thread := c.idx.SideThread(anchor)
	if len(thread) == 0 {
		return anchor, nil
	}
	last := thread[len(thread)-1]
	if end, ok := c.idx.SideEnd(last.ID); ok {
		return end.ID, nil
	}
	t := c.sides[last.ID]
	if t == nil {
		tip := c.idx.SideTip(last.ID)
		t = &turn{conv: c, id: last.ID, place: &side{tip: tip}, cancel: func(error) {}}
		c.sides[last.ID] = t
	}
	t.cancel(errStopped)
	end, err := t.stopSideLocked(ctx)
	return end.ID, err
}

// startSideLocked runs side turn q (the side question's node) in its own
// goroutine; its side branch goes on from tip. c.mu is held.
func (s *Service) startSideLocked(c *conversation, a agents.Assistant, q tree.Node, text string, tip int64, record durable.Journal) *turn {
	return s.runLocked(c, a, q.ID, &side{tip: tip}, text, record)
}

// stopSideLocked records side turn t as stopped, keeping what streamed of
// its reply, as a stopped turn of the flow does (tree.Message.Partial).
// c.mu is held.
func (t *turn) stopSideLocked(ctx context.Context) (tree.Node, error) {
	return t.endSideLocked(ctx, tree.Stopped, tree.Message{Text: "Stopped.", Partial: t.draftLocked()})
}

// endSideLocked records the end of side turn t, which stops being live,
// and logs the return to the flow. c.mu is held.
func (t *turn) endSideLocked(ctx context.Context, kind tree.Kind, m tree.Message) (tree.Node, error) {
	c := t.conv
	c.questions.withdrawLocked(t.place) // before the page hears of the end
	end, err := t.appendLocked(ctx, tree.Node{Kind: kind, Agent: t.agent, Payload: tree.MustEncode(m)})
	delete(c.sides, t.id)
	c.page.broadcastStatusLocked()
	if err != nil {
		return end, err
	}
	if err := c.svc.store.LogMove(ctx, c.conv.ID, end.ID, c.conv.Head, tree.Move{Action: tree.ActReturn, Detail: "back to the flow"}); err != nil {
		c.svc.log.Warn("log the return from a side question", "conversation", c.conv.ID, "err", err)
	}
	return end, nil
}

// resumeSidesLocked resumes the side turns of HEAD's branch that a restart
// interrupted: each side question without an end whose turn is not
// running runs again from its record. c.mu is held.
func (s *Service) resumeSidesLocked(c *conversation) {
	for _, n := range c.path {
		for _, q := range c.idx.SideThread(n.ID) {
			if _, ended := c.idx.SideEnd(q.ID); ended || c.sides[q.ID] != nil {
				continue
			}
			a, ok := s.agents.Get(c.conv.Agent)
			if !ok {
				return
			}
			s.rerunSideLocked(c, a, q, c.idx.SideTip(q.ID))
		}
	}
}

// rerunSideLocked runs side question q's turn again from its record up to
// tip, where its branch goes on: after a restart, or from a changed
// answer. Its questions still unanswered there wait again. c.mu is held.
func (s *Service) rerunSideLocked(c *conversation, a agents.Assistant, q tree.Node, tip int64) {
	branch := c.idx.PathTo(tip)
	after := branch[len(c.idx.PathTo(q.ID)):]
	m, _ := tree.Decode[tree.Message](q)
	record := durable.NewJournal(c.idx.Tried(after))
	t := s.startSideLocked(c, a, q, m.Text, tip, record)
	for ref, n := range record.Unanswered() {
		if req, err := tree.Decode[elicit.Request](n); err == nil {
			c.questions.waitLocked(ref, newWaiter(t, n.ID, req))
		}
	}
}

// stopSidesLocked stops every side turn that works and reports whether
// there was one. c.mu is held.
func (c *conversation) stopSidesLocked(ctx context.Context) (bool, error) {
	stopped := false
	for _, t := range c.sides {
		t.cancel(errStopped)
		if _, err := t.stopSideLocked(ctx); err != nil {
			return stopped, err
		}
		stopped = true
	}
	return stopped, nil
}

// AskAside asks text in the side thread of node: a thread beside the
// conversation, which the model answers from the conversation up to node
// and the thread so far, while HEAD stays where it is. node must be on
// HEAD's branch. Invalid for an empty or overlong message.
func (s *Service) AskAside(ctx context.Context, session, id string, node int64, text string) error {
	text, err := inbound.CheckMessage(text)
	if err != nil {
		return err
	}
	return s.with(ctx, session, id, func(c *conversation) error {
		a, ok := s.agents.Get(c.conv.Agent)
		if !ok {
			return apperr.Errorf(apperr.Invalid, "This conversation's agent %q is not available.", c.conv.Agent)
		}
		if !c.path.Contains(node) {
			return apperr.Errorf(apperr.NotFound, "There is no message %d in the conversation as shown.", node)
		}
		return s.sideQuestLocked(ctx, c, a, c.idx.AsideFrom(c.path, node), text)
	})
}
