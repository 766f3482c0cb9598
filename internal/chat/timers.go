package chat

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/sweatpants-go/sweatpants/agents"
	"github.com/sweatpants-go/sweatpants/elicit"
	"github.com/sweatpants-go/sweatpants/internal/timers"
)

// Time in a conversation. A question may expire (elicit.Request.Expires),
// and a durable sleep is a question only the clock answers (elicit.Wait):
// while such a question waits, a timer of the conversation (package
// timers) is set for its time, and cleared once it no longer waits
// (answered, withdrawn by a stop, left on a branch). At its time, the node
// that finds it due loads the conversation, under its lease, and answers
// the question Expired, recorded as any answer is: it fires once.

// elicitTimer is the key of the timer of question eid.
func elicitTimer(eid string) string { return timers.Key("elicit", eid) }

// timeLocked sets the timer of the question w, if it expires. c.mu is held.
func (qs *questions) timeLocked(eid string, w *waiter) {
	c := qs.c
	if w.req.Expires == nil || c.svc.clock == nil {
		return
	}
	t := timers.Timer{Conversation: c.conv.ID, Key: elicitTimer(eid), Owner: c.owner, Due: *w.req.Expires}
	if err := c.svc.clock.Set(context.WithoutCancel(c.svc.ctx), t); err != nil {
		c.svc.log.Error("the timer of an expiring question not set", "conversation", c.conv.ID, "elicit", eid, "err", err)
	}
}

// untimeLocked clears the timer of the question w, which waits no more.
// c.mu is held.
func (qs *questions) untimeLocked(eid string, w *waiter) {
	c := qs.c
	if w.req.Expires == nil || c.svc.clock == nil {
		return
	}
	if err := c.svc.clock.Clear(context.WithoutCancel(c.svc.ctx), c.conv.ID, elicitTimer(eid)); err != nil {
		// Left, it fires, finds nothing waiting, and is cleared then.
		c.svc.log.Warn("the timer of a question not cleared", "conversation", c.conv.ID, "elicit", eid, "err", err)
	}
}

// expire answers the question of elicit timer t Expired, if it still
// waits and its time has come; later is its time when it has not.
func (s *Service) expire(ctx context.Context, t timers.Timer) (later time.Time, err error) {
	_, eid, _ := strings.Cut(t.Key, ":")
	err = s.holding(ctx, t.Owner, t.Conversation, func(c *conversation) error {
		h, due, err := c.questions.expire(eid)
		later = due
		if err != nil || h == nil {
			return err
		}
		return h.wait()
	})
	return later, err
}

// expire hands the answer Expired to the turn waiting on eid once its time
// has come. Nothing waiting on eid, it does nothing: the question was
// answered, withdrawn, or asked on a branch the conversation left.
func (qs *questions) expire(eid string) (*heldAnswer, time.Time, error) {
	qs.c.lock()
	defer qs.c.mu.Unlock()
	w := qs.pending[eid]
	if w == nil || w.req.Expires == nil {
		return nil, time.Time{}, nil
	}
	if due := *w.req.Expires; qs.c.svc.now().Before(due) {
		return nil, due, nil
	}
	h, err := qs.deliverLocked(w.req, elicit.Response{Action: elicit.Expired})
	return h, time.Time{}, err
}

// Timers is the clock of the service's timers, for a test or a benchmark
// that moves time (Config.Now) and fires what came due (FireDue); nil when
// the store keeps no timers.
func (s *Service) Timers() *timers.Clock { return s.clock }

// A turn's deadline (agents.Assistant.Deadline) is a timer too, from the
// turn's message as recorded: set while the turn runs (again when it is
// resumed) and cleared when its end is recorded. At it, whichever node
// finds it due stops the turn with errTimedOut, which ends it as a stop
// does, told apart (tree.Message.TimedOut).

// errTimedOut is the cause of a turn's cancellation at its deadline.
var errTimedOut = errors.New("the turn ran past its deadline")

// deadlineTimer is the key of the deadline of the turn of message id.
func deadlineTimer(id int64) string { return timers.Key("deadline", strconv.FormatInt(id, 10)) }

// timeLocked sets the timer of t's deadline, if a has one; a side
// question's answer has none. c.mu is held.
func (t *turn) timeLocked(a agents.Assistant) {
	c := t.conv
	if _, flowTurn := t.place.(flow); a.Deadline <= 0 || c.svc.clock == nil || !flowTurn {
		return
	}
	msg, ok := c.idx.Node(t.id)
	if !ok {
		return
	}
	tm := timers.Timer{Conversation: c.conv.ID, Key: deadlineTimer(t.id), Owner: c.owner, Due: msg.At.Add(a.Deadline)}
	if err := c.svc.clock.Set(context.WithoutCancel(c.svc.ctx), tm); err != nil {
		c.svc.log.Error("a turn's deadline not set", "conversation", c.conv.ID, "turn", t.id, "err", err)
	}
}

// untimeLocked clears the timer of t's deadline, its end recorded. c.mu is
// held.
func (t *turn) untimeLocked(a agents.Assistant) {
	c := t.conv
	if _, flowTurn := t.place.(flow); a.Deadline <= 0 || c.svc.clock == nil || !flowTurn {
		return
	}
	if err := c.svc.clock.Clear(context.WithoutCancel(c.svc.ctx), c.conv.ID, deadlineTimer(t.id)); err != nil {
		c.svc.log.Warn("a turn's deadline not cleared", "conversation", c.conv.ID, "turn", t.id, "err", err)
	}
}

// timeOut stops the turn of deadline timer t, if it still runs and its
// time has come; later is its time when it has not.
func (s *Service) timeOut(ctx context.Context, t timers.Timer) (later time.Time, err error) {
	_, ref, _ := strings.Cut(t.Key, ":")
	id, err := strconv.ParseInt(ref, 10, 64)
	if err != nil {
		return time.Time{}, nil // not a deadline of ours: dropped
	}
	err = s.with(ctx, t.Owner, t.Conversation, func(c *conversation) error {
		cur := c.current
		if cur == nil || cur.id != id {
			return nil // ended, or on a branch the conversation left
		}
		if s.now().Before(t.Due) {
			later = t.Due
			return nil
		}
		cur.cancel(errTimedOut)
		if c.questions.withdrawLocked(cur.place) { // as a stop does
			c.page.hub.ResyncLocked()
		}
		return nil
	})
	return later, err
}
