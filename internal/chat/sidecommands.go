package chat

import (
	"context"

	"github.com/sweatpants-go/sweatpants/internal/apperr"
	"github.com/sweatpants-go/sweatpants/internal/tree"
	"github.com/sweatpants-go/sweatpants/internal/words"
)

// ContinueHere makes side question q's thread the flow: the waiting question is withdrawn, recorded as a
// Stopped node at the thread's end (tree.Continues), where HEAD moves (reflog "continue").
// Conflict unless a question of the flow waits and the thread has ended.
func (s *Service) ContinueHere(ctx context.Context, session, id string, q int64) error {
	return s.with(ctx, session, id, func(c *conversation) error {
		if n, _ := c.idx.Node(q); !c.shownSideLocked(n) {
			return apperr.Errorf(apperr.NotFound, "There is no side question %d beside the conversation as shown.", q)
		}
		req, waits := c.questions.waitingOnLocked()
		if !waits {
			return apperr.Errorf(apperr.Conflict, "No question of the conversation waits, so there is nothing to continue from the side instead of.")
		}
		end, ended := c.idx.ThreadEnd(q)
		if !ended {
			return apperr.Errorf(apperr.Conflict, "The side question is still being answered: wait for its reply, or stop it, then continue from it.")
		}
		c.parkLocked()
		page, detail := words.Withdrawn(req.Message)
		_, err := c.appendLocked(ctx, tree.Node{Parent: end.ID, Kind: tree.Stopped, Agent: req.Agent, Payload: tree.MustEncode(tree.Message{Text: page})},
			tree.AppendOptions{Fork: true, Log: &tree.Move{Action: tree.ActContinue, Detail: detail}}) // resyncs the page
		return err
	})
}

// BackToFlow goes back from the side thread continued on HEAD's branch to the question that
// waited (reflog "to-flow"), its turn resumed. Conflict when no thread on HEAD's branch was.
func (s *Service) BackToFlow(ctx context.Context, session, id string) error {
	return s.holding(ctx, session, id, func(c *conversation) error {
		reflog, err := s.store.Reflog(ctx, id) // before the lock: a turn may record meanwhile
		if err != nil {
			return err
		}
		c.lock()
		defer c.mu.Unlock()
		to, ok := tree.ToFlow(reflog, c.path)
		if n, found := c.idx.Node(to); ok && found {
			return s.moveHeadLocked(ctx, c, to, tree.Move{Action: tree.ActToFlow, Detail: "back to " + words.Node(n)})
		}
		return apperr.Errorf(apperr.Conflict, "This conversation did not go on from a side question here, so there is no flow to go back to.")
	})
}
