package demo

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/sweatpants-go/sweatpants/agents"
	"github.com/sweatpants-go/sweatpants/policy"
	"github.com/sweatpants-go/sweatpants/turn"
)

// The reminders agent sets, lists and cancels reminders: each is a message
// the conversation schedules to itself (turn.Schedule), "Reminder: …",
// sent at its time, which the assistant then answers. Setting and
// cancelling one changes what happens later, so the policy asks the user
// first, as it does before a note is kept.
var Reminders = agents.New("reminders", "Reminds the user of something at a time they say.")

// ReminderPrefix starts every reminder's message.
const ReminderPrefix = "Reminder: "

// Reminder is what to be reminded of and when: in so many minutes, or at
// a time. Words of the text say when too ("remind me in 2 minutes to call
// Ann", "in 5 seconds"), for a model that left the numbers out. (No
// seconds field: its word would draw the offline model's "And a second
// one" to this tool.)
type Reminder struct {
	Text    string `json:"text" title:"Reminder" desc:"What to be reminded of" min:"1" max:"500"`
	Minutes int    `json:"minutes,omitempty" desc:"In how many minutes" min:"0" max:"10080"`
	At      string `json:"at,omitempty" desc:"HH:MM (UTC), or RFC 3339, instead of minutes"`
}

var (
	// inRE reads "in 2 minutes", "in two mins", "in 3 seconds", "in 1 hour".
	inRE = regexp.MustCompile(`(?i)\bin\s+(\d+|an?|one|two|three|four|five|six|seven|eight|nine|ten|fifteen|twenty|thirty)\s+(seconds?|secs?|minutes?|mins?|hours?)\b`)
	// atRE reads "at 9:30", "at 14:05".
	atRE = regexp.MustCompile(`(?i)\bat\s+(\d{1,2}):(\d{2})\b`)
	// askRE is how a request for a reminder starts, which the reminder
	// itself leaves out.
	askRE = regexp.MustCompile(`(?i)^\s*(please\s+)?(can you\s+)?(remind\s+me|set\s+(me\s+)?a\s+reminder)\s*`)
	toRE  = regexp.MustCompile(`(?i)^(to|about|of|that|:)\s+`)
)

var numberWords = map[string]int{"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10, "fifteen": 15, "twenty": 20, "thirty": 30}

// when says when r is due, from now: the words of its text first, when
// they say it ("in 5 seconds", "at 9:30": a model may have read the number
// into the wrong field), else its minutes, else its time.
func (r Reminder) when(now time.Time) (time.Time, error) {
	if m := inRE.FindStringSubmatch(r.Text); m != nil {
		n, ok := numberWords[strings.ToLower(m[1])]
		if !ok {
			n, _ = strconv.Atoi(m[1])
		}
		unit := time.Minute
		switch u := strings.ToLower(m[2]); {
		case strings.HasPrefix(u, "s"):
			unit = time.Second
		case strings.HasPrefix(u, "h"):
			unit = time.Hour
		}
		return now.Add(time.Duration(n) * unit), nil
	}
	if m := atRE.FindStringSubmatch(r.Text); m != nil {
		return atTime(m[1]+":"+m[2], now)
	}
	switch {
	case r.Minutes < 0:
		return time.Time{}, fmt.Errorf("say when, in the future")
	case r.Minutes > 0:
		return now.Add(time.Duration(r.Minutes) * time.Minute), nil
	case strings.TrimSpace(r.At) != "":
		return atTime(strings.TrimSpace(r.At), now)
	}
	return time.Time{}, fmt.Errorf("say when: in how many minutes, or at what time (HH:MM, UTC)")
}

// atTime reads at as RFC 3339, or as HH:MM in UTC: the next such time.
func atTime(at string, now time.Time) (time.Time, error) {
	if t, err := time.Parse(time.RFC3339, at); err == nil {
		if !t.After(now) {
			return time.Time{}, fmt.Errorf("%s has passed: say a time to come", at)
		}
		return t, nil
	}
	hm, err := time.Parse("15:04", at)
	if err != nil {
		return time.Time{}, fmt.Errorf("%q is not a time: say HH:MM (UTC) or a date and time in RFC 3339", at)
	}
	now = now.UTC()
	t := time.Date(now.Year(), now.Month(), now.Day(), hm.Hour(), hm.Minute(), 0, 0, time.UTC)
	if !t.After(now) {
		t = t.AddDate(0, 0, 1)
	}
	return t, nil
}

// what is the reminder's own words: the text without the request around
// it ("remind me in 2 minutes to call Ann" is "call Ann").
func (r Reminder) what() string {
	s := strings.TrimRight(strings.TrimSpace(r.Text), ".!? ")
	s = askRE.ReplaceAllString(s, "")
	for _, re := range []*regexp.Regexp{inRE, atRE} {
		if loc := re.FindStringIndex(s); loc != nil && (loc[0] == 0 || loc[1] == len(s)) {
			s = strings.TrimSpace(s[:loc[0]] + s[loc[1]:])
		}
	}
	s = toRE.ReplaceAllString(strings.TrimSpace(s), "")
	return strings.TrimRight(strings.TrimSpace(s), ".!? ")
}

// SetReminder schedules a reminder.
var SetReminder = agents.NewTool(Reminders, "set_reminder", "Remind me in N minutes, or at HH:MM",
	func(ctx context.Context, r Reminder) (string, error) {
		what := r.what()
		if what == "" {
			return "", fmt.Errorf("say what to be reminded of")
		}
		at, err := r.when(turn.Now(ctx))
		if err != nil {
			return "", err
		}
		s, err := turn.Schedule(ctx, turn.Scheduled{Message: ReminderPrefix + what, At: at})
		if err != nil {
			return "", err
		}
		return fmt.Sprintf("I will remind you to %s at %s UTC (reminder %s).", what, s.Next.UTC().Format("15:04:05"), s.ID), nil
	}).Does(policy.Writes).Titled("Set a reminder").
	Describes(func(ctx context.Context, r Reminder) (string, error) {
		at, err := r.when(turn.Now(ctx))
		if err != nil {
			return "Remind you of “" + r.what() + "”", nil
		}
		return "Remind you of “" + r.what() + "” at " + at.UTC().Format("15:04:05") + " UTC", nil
	})

// NoInput is a tool's input of nothing.
type NoInput struct{}

// ListReminders lists the conversation's reminders to come.
var ListReminders = agents.NewTool(Reminders, "list_reminders", "List the reminders to come",
	func(ctx context.Context, _ NoInput) (string, error) {
		list, err := turn.Schedules(ctx)
		if err != nil {
			return "", err
		}
		if len(list) == 0 {
			return "No reminders are set.", nil
		}
		var b strings.Builder
		for _, s := range list {
			fmt.Fprintf(&b, "- %s at %s UTC (reminder %s)\n", strings.TrimPrefix(s.Message, ReminderPrefix), s.Next.UTC().Format("2006-01-02 15:04:05"), s.ID)
		}
		return b.String(), nil
	}).Titled("List reminders")

// Which names a reminder: its id, or words of it.
type Which struct {
	Text string `json:"text" title:"Reminder" desc:"The reminder's id, or what it reminds of" min:"1" max:"500"`
}

// CancelReminder cancels a reminder.
var CancelReminder = agents.NewTool(Reminders, "cancel_reminder", "Cancel a reminder",
	func(ctx context.Context, w Which) (string, error) {
		s, err := whichReminder(ctx, w.Text)
		if err != nil {
			return "", err
		}
		if err := turn.Unschedule(ctx, s.ID); err != nil {
			return "", err
		}
		return "Cancelled the reminder to " + strings.TrimPrefix(s.Message, ReminderPrefix) + ".", nil
	}).Does(policy.Writes).Titled("Cancel a reminder").
	Describes(func(ctx context.Context, w Which) (string, error) {
		if s, err := whichReminder(ctx, w.Text); err == nil {
			return "Cancel the reminder “" + strings.TrimPrefix(s.Message, ReminderPrefix) + "”", nil
		}
		return "Cancel a reminder", nil
	})

// whichReminder finds the reminder text names: by id, else the one that
// shares most words with it, else the only one.
func whichReminder(ctx context.Context, text string) (turn.Scheduled, error) {
	list, err := turn.Schedules(ctx)
	if err != nil {
		return turn.Scheduled{}, err
	}
	if len(list) == 0 {
		return turn.Scheduled{}, fmt.Errorf("no reminders are set")
	}
	words := strings.Fields(strings.ToLower(text))
	best, score := -1, 0
	for i, s := range list {
		if strings.Contains(text, s.ID) {
			return s, nil
		}
		n := 0
		for _, w := range strings.Fields(strings.ToLower(strings.TrimPrefix(s.Message, ReminderPrefix))) {
			for _, said := range words {
				if len(w) > 2 && strings.Trim(said, ".,!?") == w {
					n++
				}
			}
		}
		if n > score {
			best, score = i, n
		}
	}
	switch {
	case best >= 0:
		return list[best], nil
	case len(list) == 1:
		return list[0], nil
	}
	return turn.Scheduled{}, fmt.Errorf("say which reminder: its id or its words (list_reminders lists them)")
}

// ReadReminder reads what r reminds of and when, from now: for a test.
func ReadReminder(r Reminder, now time.Time) (string, time.Time, error) {
	at, err := r.when(now)
	return r.what(), at, err
}
