package chat

import (
	"context"
	"time"

	"github.com/sweatpants-go/sweatpants/agents"
	"github.com/sweatpants-go/sweatpants/internal/apperr"
	"github.com/sweatpants-go/sweatpants/internal/durable"
	"github.com/sweatpants-go/sweatpants/internal/feed"
	"github.com/sweatpants-go/sweatpants/internal/history"
	"github.com/sweatpants-go/sweatpants/internal/inbound"
	"github.com/sweatpants-go/sweatpants/internal/inbox"
	"github.com/sweatpants-go/sweatpants/internal/pageview"
	"github.com/sweatpants-go/sweatpants/internal/tree"
	"github.com/sweatpants-go/sweatpants/internal/words"
)

// Input while the agent works. A message sent while a turn works does what
// the assistant's InputPolicy says: by default it interrupts the turn (the
// turn is recorded as stopped) and starts a new one, or, sent within
// BatchWindow of the message before while the turn has recorded nothing,
// joins that message; an assistant may queue messages until the turn ends
// instead. While the turn waits on a question, a message is decided on
// instead (decide.go): an answer in words, a change of an earlier answer,
// or a side question.

// DefaultBatchWindow is how soon after a message the next one joins it, when the
// turn of the first has recorded and shown nothing yet: people send a
// thought in a few quick messages. Once a reply streams, a new message
// interrupts it instead.
// Config.BatchWindow may say otherwise.
const DefaultBatchWindow = 2 * time.Second

// startLocked records m as a user message at HEAD and starts a turn of a
// with it. c.mu is held.
func (s *Service) startLocked(ctx context.Context, c *conversation, a agents.Assistant, m tree.Message) error {
	m.History = history.Latest
	msg, err := c.appendLocked(ctx, tree.Node{Kind: tree.UserMessage, Payload: tree.MustEncode(m)},
		tree.AppendOptions{Log: &tree.Move{Action: tree.ActMessage, Detail: words.Title(m.Text)}})
	if err != nil {
		return err
	}
	c.retitleLocked(ctx)
	s.startTurnLocked(c, a, msg, c.path.TurnText(len(c.path)-1), durable.Journal{})
	c.page.broadcastStatusLocked()
	return nil
}

// whileWorkingLocked handles m, sent while the current turn works (it
// waits on no question), as a's policy says. c.mu is held.
func (s *Service) whileWorkingLocked(ctx context.Context, c *conversation, a agents.Assistant, m inbound.Message) (inbound.Sent, error) {
	t := c.current
	if a.Input == agents.Queue {
		// Recorded, so that it is sent after a restart too.
		n, err := c.appendLocked(ctx, tree.Node{Parent: c.conv.Head, Kind: tree.Queued, Payload: tree.MustEncode(m.Record())},
			tree.AppendOptions{Fork: true, Aside: true})
		if err != nil {
			return "", err
		}
		c.inbox.Queue(m, n.ID)
		c.page.broadcastStatusLocked()
		return inbound.SentQueued, nil
	}
	if c.path.Head() == t.id && c.page.draftLocked() == "" && s.since(t.started) < s.batchWindow {
		// Nothing of the turn is recorded or shown: it goes away, and a
		// turn starts again with both messages.
		c.parkLocked()
		return inbound.SentJoined, s.startLocked(ctx, c, a, m.Record())
	}
	t.cancel(errInterrupted)
	_, err := c.appendLocked(ctx, tree.Node{Kind: tree.Stopped, Agent: t.agent, Payload: tree.MustEncode(tree.Message{Text: inbox.StoppedByMessage, Partial: c.page.draftLocked()})},
		tree.AppendOptions{Log: &tree.Move{Action: tree.ActCancel, Detail: "stopped the turn: a new message came"}})
	if err != nil {
		return "", err
	}
	c.current = nil
	c.page.turnEndedLocked()
	c.questions.withdrawLocked(t.place)
	return inbound.SentInterrupted, s.startLocked(ctx, c, a, m.Record())
}

// startQueuedLocked starts a turn with the messages queued while the last
// one worked, joined into one. A service shutting down starts none: the
// turn it cut is resumed at the next start, and the queue sent after it.
// c.mu is held.
func (s *Service) startQueuedLocked(c *conversation) {
	if c.current != nil || s.ctx.Err() != nil {
		return
	}
	queued := c.inbox.Take()
	if len(queued) == 0 {
		return
	}
	a, ok := s.agents.Get(c.conv.Agent)
	if !ok {
		return
	}
	// The record is written for the user; the request that queued the
	// message is long answered.
	ctx := context.WithoutCancel(s.ctx)
	if err := s.startLocked(ctx, c, a, inbox.Joined(queued)); err != nil {
		s.log.Error("start a queued message's turn", "conversation", c.conv.ID, "err", err)
		c.page.sayLocked(pageview.Notice{Text: "Your queued message could not be sent: " + apperr.MessageOf(err)})
	}
}

// retitleLocked makes the conversation's title the first message of HEAD's
// branch, which an edit of that message, or a switch to another version of
// it, changes, until the user names the conversation. c.mu is held.
func (c *conversation) retitleLocked(ctx context.Context) {
	if c.conv.Named {
		return // the user named it (Rename)
	}
	if len(c.path) == 0 || c.path[0].Kind != tree.UserMessage {
		return
	}
	m, _ := tree.Decode[tree.Message](c.path[0])
	if t := words.Title(m.Text); t != c.conv.Title {
		c.conv.Title = t
		if err := c.svc.store.SetTitle(ctx, c.conv.ID, t); err != nil {
			c.svc.log.Warn("set title", "conversation", c.conv.ID, "err", err)
		}
		conv := c.conv
		c.page.hub.BroadcastLocked(feed.Change{Title: &conv})
	}
}
