package demo_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sweatpants-go/sweatpants/examples/demo"
)

// The offline model picks the reminder tools from plain words, and
// answers a reminder when it comes, in words, calling no tool.
func TestTheOfflineModelSetsListsAndCancelsReminders(t *testing.T) {
	a := demo.Agents(demo.Options{})
	general := a[len(a)-1]
	for msg, want := range map[string]string{
		"remind me in 2 minutes to call Ann":    "set_reminder",
		"Remind me at 9:30 to water the plants": "set_reminder",
		"list my reminders":                     "list_reminders",
		"cancel the reminder to call Ann":       "cancel_reminder",
	} {
		var o offlineTurn
		o.run(t, general, msg)
		if !slices.Contains(o.called, want) {
			t.Errorf("%q called %v, want %s", msg, o.called, want)
		}
	}
	var o offlineTurn
	reply := o.run(t, general, demo.ReminderPrefix+"call Ann")
	if len(o.called) != 0 || !strings.Contains(reply, "call Ann") {
		t.Errorf("a reminder come: called %v, replied %q; want a reply in words naming it", o.called, reply)
	}
}

// A reminder's words and time are read from the request around them.
func TestAReminderIsReadFromItsRequest(t *testing.T) {
	now := time.Date(2030, 1, 2, 9, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		r    demo.Reminder
		what string
		at   time.Time
	}{
		{demo.Reminder{Text: "remind me in 2 minutes to call Ann"}, "call Ann", now.Add(2 * time.Minute)},
		{demo.Reminder{Text: "Remind me to call Ann in two minutes."}, "call Ann", now.Add(2 * time.Minute)},
		{demo.Reminder{Text: "remind me in 3 seconds to stretch"}, "stretch", now.Add(3 * time.Second)},
		{demo.Reminder{Text: "remind me at 8:15 to buy bread"}, "buy bread", now.Add(23*time.Hour + 15*time.Minute)},
		{demo.Reminder{Text: "call Ann", Minutes: 2}, "call Ann", now.Add(2 * time.Minute)},
		{demo.Reminder{Text: "call Ann", At: "09:30"}, "call Ann", now.Add(30 * time.Minute)},
		{demo.Reminder{Text: "remind me in 5 seconds to stretch", Minutes: 5}, "stretch", now.Add(5 * time.Second)},
	} {
		what, at, err := demo.ReadReminder(c.r, now)
		if err != nil || what != c.what || !at.Equal(c.at) {
			t.Errorf("%+v: %q at %v (%v), want %q at %v", c.r, what, at, err, c.what, c.at)
		}
	}
	if _, _, err := demo.ReadReminder(demo.Reminder{Text: "call Ann"}, now); err == nil || !strings.Contains(err.Error(), "say when") {
		t.Errorf("no time: %v, want a clear error", err)
	}
}
