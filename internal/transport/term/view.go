package term

import (
	"fmt"
	"strings"

	"github.com/sweatpants-go/sweatpants/elicit"
	"github.com/sweatpants-go/sweatpants/figure"
	"github.com/sweatpants-go/sweatpants/internal/pageview"
	"github.com/sweatpants-go/sweatpants/internal/tree"
)

// greet prints what the conversation is and how to use the terminal, then
// the conversation so far when it is continued.
func (t *tty) greet(v pageview.View) {
	t.agent = v.Conversation.Agent
	t.say("Conversation %s with %s (model: %s).", v.Conversation.ID, v.Conversation.Agent, v.Model)
	t.say("Type a message and press Enter; Ctrl-C stops the agent, Ctrl-D ends. A question takes /d to decline, /c to cancel, /? for more.")
	for _, it := range v.Items {
		switch {
		case it.Kind == tree.UserMessage:
			t.say("you> %s", it.Text)
		case it.Elicit != nil && it.Elicit.Response != nil && it.Elicit.Response.Action != elicit.Expired: // showEnded says those
			t.say("  [%s asked: %s — %s]", agentOf(it), it.Elicit.Request.Message, it.Elicit.Response.Action)
		}
		t.show(it)
	}
}

// resync replaces what the terminal knows with v, printing what is new.
func (t *tty) resync(v pageview.View) bool {
	t.items = v.Items
	printed := false
	for _, it := range v.Items {
		printed = t.show(it) || printed
		t.confirm(it)
	}
	return t.setStatus(v.Status) || printed
}

// apply takes in an update, printing what is new, and reports whether it
// printed anything.
func (t *tty) apply(u update) bool {
	if u.resync != nil {
		return t.resync(*u.resync)
	}
	printed := false
	for _, c := range u.changes {
		switch {
		case c.Item != nil:
			t.put(*c.Item, c.New)
			if e := c.Item.Elicit; c.New && e != nil && e.State == pageview.Pending && t.asking != "" && t.asking != e.Request.ID {
				pos, queued := t.queuePos(e.Request.ID)
				t.say("  (%s asks too, next: %d of %d waiting)", agentOf(*c.Item), pos, queued)
				printed = true
			}
			printed = t.show(*c.Item) || printed
			t.confirm(*c.Item)
		case c.Status != nil:
			printed = t.setStatus(*c.Status) || printed
		case c.Title != nil:
		default:
			// News (what a message did, an answer kept) is said in
			// brackets, as the terminal's other notes; a problem is marked.
			switch {
			case c.Notice.Text != "" && c.Notice.Info:
				t.say("  (%s)", c.Notice.Text)
				printed = true
			case c.Notice.Text != "":
				t.say("  ! %s", c.Notice.Text)
				printed = true
			}
		}
	}
	return printed
}

// put adds a new item or replaces the one shown with its id.
func (t *tty) put(it pageview.Item, isNew bool) {
	if !isNew {
		for i := range t.items {
			if t.items[i].ID == it.ID {
				t.items[i] = it
				return
			}
		}
	}
	t.items = append(t.items, it)
}

// confirm forgets a question answered here once the subscription shows it
// answered: changes from then on are newer than the answer.
func (t *tty) confirm(it pageview.Item) {
	if it.Elicit != nil && it.Elicit.State != pageview.Pending {
		delete(t.answered, it.Elicit.Request.ID)
	}
}

// setStatus takes in the turn's status, printing progress that changed.
func (t *tty) setStatus(st pageview.Status) bool {
	if st.Running {
		t.sent = false // the subscription shows the turn from here on
	}
	t.status = st
	if st.Progress == nil || !st.Running {
		t.progress = ""
		return false
	}
	line := progressLine(st.Progress.Message, st.Progress.Fraction)
	if line == t.progress {
		return false
	}
	t.progress = line
	t.say("%s", line)
	return true
}

// progressLine draws progress as a bar of ten cells and the message.
func progressLine(message string, fraction float64) string {
	fraction = min(max(fraction, 0), 1)
	full := int(fraction*10 + 0.5)
	return fmt.Sprintf("  [%s%s] %3.0f%% %s", strings.Repeat("#", full), strings.Repeat("-", 10-full), fraction*100, message)
}

// show prints an item the first time it is final: a reply, an error, a
// side question's answer. Messages the user typed here are not repeated,
// and questions are shown when asked.
func (t *tty) show(it pageview.Item) bool {
	if t.seen[it.ID] {
		return false
	}
	if it.Kind == tree.ElicitRequest {
		if !t.showEnded(it) {
			return false
		}
		t.seen[it.ID] = true
		return true
	}
	switch it.Kind {
	case tree.AssistantMessage:
		t.sent = false
		t.say("%s> %s", agentOf(it), it.Text)
	case tree.TurnError:
		t.sent = false
		t.say("  ! %s", it.Text)
		t.say("  (/retry takes this turn again; or type a new message)")
	case tree.Stopped:
		t.sent = false
		t.say("  (%s)", it.Text)
	case tree.ForkEnd: // what the agent tried and decided (agents.Fork)
		t.say("  (%s)", it.Text)
	case tree.SideQuestion:
		if !it.Replied {
			return false
		}
		// A side question is answered by the conversation's assistant,
		// which its item does not name.
		name := agentOf(it)
		if it.Agent == "" && t.agent != "" {
			name = t.agent
		}
		t.say("  (aside) %s> %s", name, it.Reply)
	case tree.Figure:
		// A table or a chart, as aligned text, set off by an indent.
		t.say("  %s", strings.ReplaceAll(strings.TrimSuffix(figure.Text(*it.Figure), "\n"), "\n", "\n  "))
	case tree.UserMessage:
		t.seen[it.ID] = true
		return false
	default:
		return false
	}
	t.seen[it.ID] = true
	return true
}

func agentOf(it pageview.Item) string {
	if it.Elicit != nil && it.Elicit.Request.Agent != "" {
		return it.Elicit.Request.Agent
	}
	if it.Agent != "" {
		return it.Agent
	}
	return "assistant"
}

// next returns the question to answer now, if one is pending, with its
// place in the queue of pending questions (from 1) and the queue's length.
// Items are snapshots, so the queue is counted here, in the order asked.
// While an answer given here is not yet shown answered, there is none: the
// queue is about to change.
func (t *tty) next() (it *pageview.Item, pos, queued int) {
	for i := range t.items {
		e := t.items[i].Elicit
		if e == nil || e.State != pageview.Pending {
			continue
		}
		if t.answered[e.Request.ID] {
			return nil, 0, 0
		}
		if it == nil {
			it = &t.items[i]
		}
		queued++
	}
	return it, 1, queued
}

// queuePos returns question eid's place in the queue and the queue's length.
func (t *tty) queuePos(eid string) (pos, queued int) {
	for _, it := range t.items {
		if e := it.Elicit; e != nil && e.State == pageview.Pending {
			queued++
			if e.Request.ID == eid {
				pos = queued
			}
		}
	}
	return pos, queued
}

// pending reports whether question eid still waits for an answer here.
func (t *tty) pending(eid string) bool {
	for _, it := range t.items {
		if it.Elicit != nil && it.Elicit.Request.ID == eid {
			return it.Elicit.State == pageview.Pending
		}
	}
	return false
}
