package term

import (
	"encoding/json"
	"time"

	"github.com/sweatpants-go/sweatpants/elicit"
	"github.com/sweatpants-go/sweatpants/internal/pageview"
)

// Time at the terminal. A wait (turn.Sleep, elicit.Wait) is no question
// to answer: the terminal says what it waits for and until when, and goes
// on with the conversation (Ctrl-C stops the turn, as it stops any). A
// question that expires says when; if nobody answers by then, its prompt
// ends saying so.

// clockTime is t as the terminal writes a time: the reader's local time,
// with its zone.
func clockTime(t time.Time) string { return t.Local().Format("Mon 2 Jan 15:04:05 MST") }

// left says how long until t from now, in whole seconds: "in 2m59s",
// "now" once it has passed.
func left(now, t time.Time) string {
	d := t.Sub(now).Round(time.Second)
	if d <= 0 {
		return "now"
	}
	return "in " + d.String()
}

// now is the terminal's clock.
func (t *tty) now() time.Time {
	if t.cfg.Now != nil {
		return t.cfg.Now()
	}
	return time.Now()
}

// isWait reports whether req is a wait, which the clock alone ends.
func isWait(req elicit.Request) bool { return req.Kind == elicit.Wait.Name }

// sayWait says what wait req waits for, and until when; the wait is not
// asked again.
func (t *tty) sayWait(it *pageview.Item) {
	req := it.Elicit.Request
	var in elicit.WaitInput
	json.Unmarshal(req.Input, &in) // a wait that does not read says only that it waits
	what := ""
	if in.For != "" {
		what = " for " + in.For
	}
	t.say("")
	t.say("── %s waits%s until %s (%s); Ctrl-C stops it", agentOf(*it), what, clockTime(in.Until), left(t.now(), in.Until))
	t.answered[req.ID] = true // nothing to answer: shown once
}

// sayExpiry says when question req expires, if it does.
func (t *tty) sayExpiry(req elicit.Request) {
	if req.Expires != nil {
		t.say("  (expires at %s, %s; unanswered by then, it is withdrawn)", clockTime(*req.Expires), left(t.now(), *req.Expires))
	}
}

// expired reports whether question eid was answered by the clock: it
// expired unanswered.
func (t *tty) expired(eid string) bool {
	for _, it := range t.items {
		if e := it.Elicit; e != nil && e.Request.ID == eid {
			return e.Response != nil && e.Response.Action == elicit.Expired
		}
	}
	return false
}

// showEnded says how an ended wait or an expired question ended, the first
// time it is seen so; it reports whether it said anything.
func (t *tty) showEnded(it pageview.Item) bool {
	e := it.Elicit
	if e == nil || e.Response == nil || e.Response.Action != elicit.Expired {
		return false
	}
	if isWait(e.Request) {
		var in elicit.WaitInput
		json.Unmarshal(e.Request.Input, &in)
		t.say("  (%s waited until %s)", agentOf(it), clockTime(in.Until))
	} else {
		t.say("  (%s asked “%s”: no answer in time, expired)", agentOf(it), e.Request.Message)
	}
	return true
}
