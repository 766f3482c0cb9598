package agenttest

import (
	"context"

	"github.com/sweatpants-go/sweatpants/elicit"
	"github.com/sweatpants-go/sweatpants/internal/chat"
	"github.com/sweatpants-go/sweatpants/internal/eventstream"
)

// Conversation is a conversation on a Server, driven as a user would:
// send a message, see the question the turn asks, answer it, read the
// reply. Each call waits on the conversation's changes for at most Wait,
// and fails the test when what it waits for does not come, or when the
// scripts found a problem meanwhile.
type Conversation struct {
	s *Server
	// ID is the conversation's id, for calls of the Server's Service.
	ID       string
	answered map[string]bool // the questions answered, by id
}

// Send sends a further message, as the user types one.
func (c *Conversation) Send(message string) {
	c.s.t.Helper()
	if err := c.s.svc.Send(c.s.t.Context(), Session, c.ID, message); err != nil {
		c.s.t.Fatalf("agenttest: send %q: %v", message, err)
	}
}

// Question waits until the turn asks the user something, and returns the
// question, unanswered. The test fails if the turn ends first.
func (c *Conversation) Question() Question {
	c.s.t.Helper()
	var q *Question
	st, ok := c.wait("a question", func(st *standing) bool {
		if req, ok := st.pending(c.answered); ok {
			q = &Question{Request: req}
			return true
		}
		return !st.running
	})
	switch {
	case !ok:
	case q == nil:
		if msg := c.s.fresh(c.s.found()); msg != "" {
			c.s.t.Fatalf("%s", msg)
			break
		}
		c.s.t.Fatalf("agenttest: the turn asked nothing: %s", st)
	default:
		return *q
	}
	return Question{}
}

// Answer accepts the question the turn waits on with content, as Answer
// the user step does: content that does not fit the question fails the
// test, and so does an answer the service refuses.
func (c *Conversation) Answer(content any) { c.respond(Answer("", content)) }

// Decline declines the question the turn waits on.
func (c *Conversation) Decline() { c.respond(Decline("")) }

// Cancel dismisses the question the turn waits on.
func (c *Conversation) Cancel() { c.respond(Cancel("")) }

// Deny refuses the device permission the question the turn waits on asks
// for.
func (c *Conversation) Deny() { c.respond(Deny("")) }

// Say answers the question the turn waits on in the user's own words.
func (c *Conversation) Say(text string) { c.respond(Say("", text)) }

// GiveFile answers the file question the turn waits on with a file called
// name holding content, as GiveFile the user step does.
func (c *Conversation) GiveFile(name string, content []byte) { c.respond(GiveFile("", name, content)) }

// respond answers the question the turn waits on as step says.
func (c *Conversation) respond(step UserStep) {
	c.s.t.Helper()
	q := c.Question()
	switch {
	case q.ID == "":
		return // failed already
	case step.broken != "":
		c.s.t.Fatalf("agenttest: %s", step.broken)
	default:
		resp := step.response(&c.s.cfg.user.files)
		if err := checkAnswer(q.Request, resp, c.s.kinds); err != nil {
			c.s.t.Fatalf("agenttest: the answer does not fit %s: %v", describeQuestion(q.Request), err)
			return
		}
		c.answer(q.Request, resp)
	}
}

// answer sends resp to the service as the answer to req, after the
// progress it reports.
func (c *Conversation) answer(req elicit.Request, resp elicit.Response) bool {
	c.s.t.Helper()
	// The progress a step reports goes first, as a browser reports it
	// while it works; the service records it with the answer.
	for _, p := range resp.Progress {
		if err := c.s.svc.Progress(c.s.t.Context(), Session, c.ID, req.ID, p); err != nil {
			c.s.t.Fatalf("agenttest: report progress on %s: %v", describeQuestion(req), err)
			return false
		}
	}
	err := c.s.svc.Answer(c.s.t.Context(), Session, c.ID, req.ID, chat.Answer{Action: resp.Action, Content: resp.Content, Text: resp.Text})
	if err != nil {
		c.s.t.Fatalf("agenttest: answer %s: %v", describeQuestion(req), err)
		return false
	}
	c.answered[req.ID] = true
	return true
}

// Reply waits until the turn ends, answering each question it asks
// meanwhile from the scripted user, and returns its reply. The test fails
// when the turn fails or is stopped, and with every problem the scripts
// found: a question no user step expects included.
func (c *Conversation) Reply() string {
	c.s.t.Helper()
	broke := false
	st, ok := c.wait("the reply", func(st *standing) bool {
		if req, ok := st.pending(c.answered); ok {
			resp, err := c.s.cfg.user.answer(req, c.s.kinds)
			if err != nil || !c.answer(req, resp) {
				broke = true
				return true
			}
			return false
		}
		return !st.running
	})
	if msg := c.s.fresh(c.s.found()); msg != "" {
		c.s.t.Fatalf("%s", msg)
		return ""
	}
	if broke || !ok {
		return "" // failed already
	}
	reply, ok := st.reply()
	if !ok {
		c.s.t.Fatalf("agenttest: the turn did not reply: %s", st.last)
		return ""
	}
	return reply
}

// wait waits until done holds of where the conversation stands, for at
// most Wait, and returns it; false when it failed the test instead. It
// reads the conversation's event stream from the start, as a program that
// drives a conversation does (package eventstream), so that it sees the
// questions asked and the runs completed as typed events.
func (c *Conversation) wait(what string, done func(*standing) bool) (*standing, bool) {
	c.s.t.Helper()
	ctx, cancel := context.WithTimeout(c.s.t.Context(), Wait)
	defer cancel()
	st := &standing{}
	es, err := eventstream.Open(ctx, c.s.svc, Session, c.ID, "")
	if err != nil {
		c.s.t.Fatalf("agenttest: follow the conversation: %v", err)
		return st, false
	}
	defer es.Close()
	// now is done already: Next with it hands the events there are now
	// and does not wait for more.
	now, stop := context.WithCancel(ctx)
	stop()
	for {
		evs, err := es.Next(ctx)
		if err != nil {
			c.s.t.Fatalf("agenttest: waiting for %s: %v; %s", what, err, st)
			return st, false
		}
		// A long record comes in batches: done is asked of the whole of
		// it as it is now, never of a part (a run completed before the
		// one that runs now, say).
		for ; err == nil; evs, err = es.Next(now) {
			for _, e := range evs {
				st.apply(e)
			}
		}
		if done(st) {
			return st, true
		}
	}
}
