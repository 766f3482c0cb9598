package templates

import (
	"testing"
	"time"

	"github.com/sweatpants-go/sweatpants/elicit"
	"github.com/sweatpants-go/sweatpants/internal/pageview"
)

// A question that expires counts down on its card, from the time the
// server wrote (clock.js ticks it from the attribute); once the clock
// answered it, it says nobody answered in time and offers nothing more.
func TestAnExpiringQuestionCountsDownThenSaysItExpired(t *testing.T) {
	at := time.Date(2030, 1, 2, 9, 3, 0, 0, time.UTC)
	req := bookingCall(t)
	req.Expires = &at
	doc := renderCard(t, &pageview.ElicitView{Request: req, State: pageview.Pending})
	cd := one(t, doc, "elicit-countdown")
	if got, _ := attrOK(cd, "data-countdown"); got != "2030-01-02T09:03:00Z" {
		t.Errorf("the countdown counts to %q, want the expiry in RFC 3339", got)
	}
	if got, _ := attrOK(cd, "data-countdown-prefix"); got != "Expires in " {
		t.Errorf("the countdown's prefix = %q", got)
	}

	doc = renderCard(t, &pageview.ElicitView{Request: req, State: pageview.Answered, Response: &elicit.Response{Action: elicit.Expired}})
	if got := textOf(one(t, doc, "elicit-answer")); got != "No answer in time (expired)" {
		t.Errorf("an expired approval says %q", got)
	}
	if len(findAll(doc, byTestID("elicit-countdown"))) > 0 || len(findAll(doc, byTag("form"))) > 0 {
		t.Error("an expired question still counts down or offers an answer")
	}
}

// A wait's card says what it waits for and until when, counting down,
// with no way to answer it; ended, it says until when it waited.
func TestAWaitCardSaysWhatForAndUntilWhen(t *testing.T) {
	until := time.Date(2030, 1, 2, 9, 10, 0, 0, time.UTC)
	req, err := elicit.Wait.Request("the seat hold to lapse", elicit.WaitInput{Until: until, For: "the seat hold to lapse"})
	if err != nil {
		t.Fatal(err)
	}
	req.ID, req.Expires = "3-1", &until
	doc := renderCard(t, &pageview.ElicitView{Request: req, State: pageview.Pending})
	if got := textOf(one(t, doc, "wait-for")); got != "the seat hold to lapse" {
		t.Errorf("waits for %q", got)
	}
	if got, _ := attrOK(one(t, doc, "local-time"), "datetime"); got != "2030-01-02T09:10:00Z" {
		t.Errorf("waits until %q", got)
	}
	one(t, doc, "wait-countdown")
	if len(findAll(doc, byTestID("elicit-countdown"))) > 0 || len(findAll(doc, byTag("form"))) > 0 || len(findAll(doc, byTag("button"))) > 0 {
		t.Error("a wait's card offers an answer, or counts down as a question that expires")
	}

	doc = renderCard(t, &pageview.ElicitView{Request: req, State: pageview.Answered, Response: &elicit.Response{Action: elicit.Expired}})
	if got := textOf(one(t, doc, "elicit-answer")); got != "Waited until Jan 2, 09:10 UTC" {
		t.Errorf("an ended wait says %q", got)
	}
	if len(findAll(doc, byTestID("change-answer"))) > 0 {
		t.Error("an ended wait offers to change its answer")
	}
}
