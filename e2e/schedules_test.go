package e2e

import (
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/playwright-community/playwright-go"

	"github.com/sweatpants-go/sweatpants/internal/store/pgtest"
)

// The demo assistant, with the offline model, sets a reminder in a few
// seconds (its tool takes seconds as well as minutes: "in 5 seconds"),
// asking approval first. The server is killed with -9 before the reminder
// is due and started again after: the reminder is sent at once, once, as
// a scheduled message the assistant answers.
func TestAReminderSurvivesSIGKILLAndFiresOnce(t *testing.T) {
	t.Parallel()
	a := startApp(t)
	cl := newEventsClient(t, a)
	conv, due := setReminder(t, cl, "remind me in 5 seconds to call Ann")

	a.stop(syscall.SIGKILL)
	if time.Now().After(due) {
		t.Fatalf("the server was killed after the reminder was due (%v): the test proves nothing", due)
	}
	// Down past its time: the scenario, not a wait on the program.
	waitFor(t, 30*time.Second, "the reminder's time to pass", func() bool { return time.Now().After(due.Add(time.Second)) })
	a.start()
	checkRemindedOnce(t, cl, conv, "call Ann")
}

// On three servers of one PostgreSQL, a reminder set on one, which is
// then killed with -9 before it is due, is sent by another once: one run
// of the scheduled message, wherever it ran.
func TestAScheduledTurnRunsOnceOnThreeNodes(t *testing.T) {
	t.Parallel()
	db := pgtest.Schema(t)
	a, b, c := startAppOn(t, db), startAppOn(t, db), startAppOn(t, db)
	cl := newEventsClient(t, a)
	conv, due := setReminder(t, cl, "remind me in 5 seconds to water the plants")
	a.stop(syscall.SIGKILL)
	if time.Now().After(due) {
		t.Fatalf("the owner was killed after the reminder was due (%v): the test proves nothing", due)
	}
	checkRemindedOnce(t, cl.at(b), conv, "water the plants")
	checkRemindedOnce(t, cl.at(c), conv, "water the plants")
}

// setReminder starts a conversation with the assistant asking for a
// reminder, approves the tool once, and returns the conversation and
// about when the reminder is due (from the tool's reply).
func setReminder(t *testing.T, cl *eventsClient, ask string) (string, time.Time) {
	t.Helper()
	conv := cl.start("assistant", ask)
	events := cl.open(conv, "")
	asked := approvalAsked(events)
	if asked["tool"] != "set_reminder" {
		t.Fatalf("the approval asked is for %v, want set_reminder", asked["tool"])
	}
	cl.answer(conv, asked["elicit"].(string), `{"action":"accept","content":{"choice":"once"}}`)
	done := events.until("the reply", endsRun)
	events.close()
	end := done[len(done)-1]
	text, _ := end.Data["text"].(string)
	if end.Data["status"] != "replied" || !strings.Contains(text, "I will remind you to") {
		t.Fatalf("setting the reminder ended %s", end.Raw)
	}
	// The reply says the time as 15:04:05 UTC; the day is today's (or
	// tomorrow's, seconds before midnight).
	i := strings.Index(text, " at ")
	at, err := time.Parse("15:04:05", text[i+4:i+12])
	if err != nil {
		t.Fatalf("no time in the reply %q: %v", text, err)
	}
	now := time.Now().UTC()
	due := time.Date(now.Year(), now.Month(), now.Day(), at.Hour(), at.Minute(), at.Second(), 0, time.UTC)
	if due.Before(now.Add(-time.Hour)) {
		due = due.AddDate(0, 0, 1)
	}
	return conv, due.Add(time.Second) // the reply's time is cut to the second
}

// checkRemindedOnce waits for the reminder's run, answered, and checks the
// conversation's record has it once.
func checkRemindedOnce(t *testing.T, cl *eventsClient, conv, what string) {
	t.Helper()
	msg := "Reminder: " + what
	s := cl.open(conv, "")
	evs := s.until("the reminder answered", func(evs []streamEvent) bool {
		e := evs[len(evs)-1]
		return e.Type == "run.completed" && e.Data["text"] == "⏰ It's time: "+what+"."
	})
	s.close()
	runs := 0
	for _, e := range evs {
		if e.Type == "run.started" && e.Data["text"] == msg {
			runs++
		}
	}
	if runs != 1 {
		t.Errorf("the reminder started %d runs, want one:%s", runs, describeEvents(evs))
	}
}

// In the browser: a reminder approved on its card is listed above the
// chat (its message, time and recurrence) and in the inspector; one due
// in seconds comes as a message marked scheduled, which the assistant
// answers, and leaves the list at once; Cancel takes a reminder off it.
func TestThePageListsAndCancelsReminders(t *testing.T) {
	t.Parallel()
	a := startApp(t)
	p := openAgent(t, a, "assistant")
	approve := func(ask, reply string) {
		t.Helper()
		p.send(ask)
		q := p.active()
		p.must(expect.Locator(q).ToHaveAttribute("data-kind", "approval"))
		p.must(expect.Locator(q.GetByTestId("approval-tool")).ToHaveText("set_reminder"))
		p.must(q.GetByTestId("approval-once").Click())
		p.must(expect.Locator(p.lastAssistant()).ToContainText(reply))
	}
	list := p.GetByTestId("schedule")
	approve("remind me in 10 minutes to call Ann", "I will remind you to call Ann")
	p.must(expect.Locator(list).ToHaveCount(1))
	p.must(expect.Locator(list.GetByTestId("schedule-message")).ToHaveText("Reminder: call Ann"))
	p.must(expect.Locator(list.GetByTestId("schedule-recurrence")).ToHaveText("once"))

	approve("remind me in 3 seconds to stretch", "I will remind you to stretch")
	p.must(expect.Locator(p.lastAssistant()).ToHaveText("⏰ It's time: stretch.", playwright.LocatorAssertionsToHaveTextOptions{Timeout: playwright.Float(30000)}))
	sent := p.GetByTestId("user-turn").Last()
	p.must(expect.Locator(sent.GetByTestId("user-message")).ToHaveText("Reminder: stretch"))
	p.must(expect.Locator(sent.GetByTestId("scheduled-mark")).ToHaveText("⏰ scheduled"))
	p.must(expect.Locator(list).ToHaveCount(1))

	conv := p.URL()
	if _, err := p.Goto(conv + "/tree"); err != nil {
		t.Fatal(err)
	}
	p.must(expect.Locator(p.GetByTestId("schedule-message")).ToHaveText("Reminder: call Ann"))
	if _, err := p.Goto(conv); err != nil {
		t.Fatal(err)
	}
	p.waitForStream()
	p.must(expect.Locator(list).ToHaveCount(1))
	p.must(list.GetByTestId("schedule-cancel").Click())
	p.must(expect.Locator(list).ToHaveCount(0))
	if _, err := p.Reload(); err != nil {
		t.Fatal(err)
	}
	p.waitForStream()
	p.must(expect.Locator(p.GetByTestId("schedules")).ToHaveAttribute("data-count", "0"))
}
