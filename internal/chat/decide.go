package chat

import (
	"context"

	"github.com/sweatpants-go/sweatpants/elicit"
	"github.com/sweatpants-go/sweatpants/internal/decide"
	"github.com/sweatpants-go/sweatpants/internal/schedule"
	"github.com/sweatpants-go/sweatpants/internal/tree"
)

// Deciding what typed text is while a question waits (package decide): by
// the model unless Config.DecideByRule says the rule, recorded beside HEAD.

// asked is what text typed while a question waits may be about, and HEAD
// when it was looked at: should HEAD have moved by the time it is decided,
// the decision no longer holds.
type asked struct {
	decide.Asked
	head int64
}

// askedLocked gathers what text may be about while req waits. c.mu is held.
func (qs *questions) askedLocked(req elicit.Request) asked {
	a := asked{Asked: decide.Asked{Waits: req}, head: qs.c.path.Head()}
	for i := len(qs.c.path) - 1; i >= 0; i-- {
		n := qs.c.path[i]
		if n.Kind != tree.ElicitResponse || n.Ref == req.ID {
			continue
		}
		if r := qs.requestLocked(n.Ref); r.Allows(elicit.Other) {
			a.Earlier = append(a.Earlier, r)
		}
	}
	return a
}

// decision is what text was taken for.
type decision = tree.DecisionRecord

// decide decides what text, of the message id, is: by the model unless
// the rule is to. A schedule's message (turn.Schedule) is the user's
// answer to nothing: it is a side question, asked beside what waits.
func (s *Service) decide(ctx context.Context, q asked, id, text string) decision {
	if schedule.Scheduled(id) {
		return decision{Text: text, Waited: q.Waits.ID, Choice: decide.Side, By: "schedule", Reason: "a scheduled message answers no question"}
	}
	if !s.decideByRule {
		d, err := decide.ByModel(ctx, decide.Model{Provider: s.model, Scope: s.scope, Now: s.now}, q.Asked, text)
		if err == nil {
			return d
		}
		if ctx.Err() == nil {
			s.log.Warn("the model could not decide what a message is; the rule decides", "err", err)
			d := decide.ByRule(q.Asked, text)
			d.Reason = "the model could not decide (" + err.Error() + "); " + d.Reason
			return d
		}
	}
	return decide.ByRule(q.Asked, text)
}

// recordDecisionLocked records d beside HEAD. c.mu is held.
func (c *conversation) recordDecisionLocked(ctx context.Context, d decision) error {
	_, err := c.appendLocked(ctx, tree.Node{Parent: c.conv.Head, Kind: tree.Decision, Payload: tree.MustEncode(d)},
		tree.AppendOptions{Fork: true, Aside: true})
	return err
}
