package agenttest

import (
	"fmt"
	"slices"
	"strings"

	"github.com/sweatpants-go/sweatpants/elicit"
	"github.com/sweatpants-go/sweatpants/internal/eventstream"
	"github.com/sweatpants-go/sweatpants/internal/tree"
)

// standing is where a conversation stands, as its event stream tells it
// (package eventstream): the kit drives a conversation as any program
// does, by the typed events a run gives, and reads nothing of the page.
type standing struct {
	// run is the flow's newest run (the id of the message that started
	// it) and running whether it has not completed yet. Side questions'
	// runs are beside the flow and do not count.
	run     int64
	running bool
	// asked are the questions waiting on an answer, in the order asked,
	// each with the run that asks it.
	asked []askedQuestion
	// end is how the flow's newest run completed, once it did.
	end *eventstream.RunCompleted
	// last says what the conversation's last event was, for a test that
	// waited in vain.
	last string
}

// askedQuestion is a question waiting on an answer, the run that asks it
// and whether that run answers a side question.
type askedQuestion struct {
	req   elicit.Request
	run   int64
	aside bool
}

// apply moves the standing past e.
func (s *standing) apply(e eventstream.Event) {
	switch d := e.Data.(type) {
	case eventstream.RunStarted:
		if !d.Aside {
			// A new run of the flow takes the place of the one before: a
			// run parked by an edit waits on nothing any more.
			s.run, s.running, s.end = d.Node, true, nil
			s.asked = slices.DeleteFunc(s.asked, func(q askedQuestion) bool { return !q.aside })
		}
		s.last = fmt.Sprintf("the last item is %s %q", tree.UserMessage, clip(d.Text))
	case eventstream.ElicitAsked:
		s.drop(d.Elicit)
		s.asked = append(s.asked, askedQuestion{req: d.Request, run: d.Run, aside: d.Aside})
		s.last = fmt.Sprintf("the last item is %s, %s", describeQuestion(d.Request), "pending")
	case eventstream.ElicitAnswered:
		if i := s.find(d.Elicit); i >= 0 {
			s.last = fmt.Sprintf("the last item is %s, %s", describeQuestion(s.asked[i].req), "answered")
		}
		s.drop(d.Elicit)
	case eventstream.ToolCall:
		s.last = fmt.Sprintf("the last item is the call of %s", d.Tool)
	case eventstream.ToolResult:
		s.last = fmt.Sprintf("the last item is what %s returned", d.Tool)
	case eventstream.ProgressEvent:
		s.last = fmt.Sprintf("the last item is progress %q", clip(d.Message))
	case eventstream.RunCompleted:
		// A run that completed asks nothing any more.
		s.asked = slices.DeleteFunc(s.asked, func(q askedQuestion) bool { return q.run == d.Run })
		if !d.Aside && d.Run == s.run {
			s.running, s.end = false, &d
		}
		switch d.Status {
		case tree.OutcomeReplied:
			s.last = fmt.Sprintf("the turn replied %q", clip(d.Text))
		case tree.OutcomeFailed:
			s.last = fmt.Sprintf("the turn failed: %s (%s)", clip(d.Text), clip(d.Details))
		case tree.OutcomeStopped:
			s.last = "the turn was stopped"
		}
	}
}

// find returns the index of question id among those asked, or -1.
func (s *standing) find(id string) int {
	return slices.IndexFunc(s.asked, func(q askedQuestion) bool { return q.req.ID == id })
}

// drop forgets question id, answered or asked again.
func (s *standing) drop(id string) {
	if i := s.find(id); i >= 0 {
		s.asked = slices.Delete(s.asked, i, i+1)
	}
}

// pending returns the first question waiting on an answer that skip does
// not pass over.
func (s *standing) pending(skip map[string]bool) (elicit.Request, bool) {
	for _, q := range s.asked {
		if !skip[q.req.ID] {
			return q.req, true
		}
	}
	return elicit.Request{}, false
}

// reply returns the reply the flow's newest run completed with, if it
// replied.
func (s *standing) reply() (string, bool) {
	if s.running || s.end == nil || s.end.Status != tree.OutcomeReplied {
		return "", false
	}
	return s.end.Text, true
}

// String says where the conversation stands, for a test that waited in
// vain.
func (s *standing) String() string {
	parts := []string{"no turn runs"}
	if s.running {
		parts[0] = "the turn runs"
	}
	if s.last != "" {
		parts = append(parts, s.last)
	}
	return strings.Join(parts, "; ")
}
