// Package schedule sends a conversation messages at times its own turns
// chose (turn.Schedule): once at a time, or every so long, or on a cron
// expression, until cancelled. A schedule is a row in the database, and
// its next occurrence a timer of kind "schedule" (package timers); at it,
// whichever node finds it due sends the message, as the conversation's
// owner would, with an id made of the schedule's and the occurrence's, and
// moves the timer on. A node killed between sending and moving leaves the
// timer to another, whose send of the same id the conversation knows and
// does not record again: each occurrence is sent once.
package schedule

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/robfig/cron/v3"

	"github.com/sweatpants-go/sweatpants/internal/apperr"
)

// Kind is the kind of a schedule's timers (timers.Key).
const Kind = "schedule"

// MaxActive is how many schedules a conversation may have at once.
const MaxActive = 20

// MinEvery is the shortest interval a recurring schedule may have.
const MinEvery = time.Second

// A Schedule is a message sent to a conversation at Next, and again on
// its recurrence (Every or Cron; neither for once).
type Schedule struct {
	ID           string
	Conversation string
	// Owner is the conversation's owner key, as whom the message is sent.
	Owner   string
	Message string
	Every   time.Duration
	Cron    string
	// Next is the occurrence to send next.
	Next    time.Time
	Created time.Time
}

// Once reports whether s is sent once only.
func (s Schedule) Once() bool { return s.Every == 0 && s.Cron == "" }

// Recurrence says how s recurs, for a person: "every 5m0s", "cron 0 9 * * *",
// or "once".
func (s Schedule) Recurrence() string {
	switch {
	case s.Cron != "":
		return "cron " + s.Cron
	case s.Every > 0:
		return "every " + s.Every.String()
	}
	return "once"
}

// parser reads standard cron expressions: minute, hour, day of month,
// month, day of week.
var parser = cron.NewParser(cron.Minute | cron.Hour | cron.Dom | cron.Month | cron.Dow)

// ParseCron checks a standard 5-field cron expression.
func ParseCron(expr string) (cron.Schedule, error) {
	c, err := parser.Parse(expr)
	if err != nil {
		return nil, apperr.Errorf(apperr.Invalid, "%q is not a cron expression of five fields (minute hour day-of-month month day-of-week): %v", expr, err)
	}
	return c, nil
}

// after is the occurrence of s after t: the zero time for a schedule sent
// once. An interval counts from the occurrence, skipping those already
// past at now, so that a schedule missed while every node was down is
// sent once, not once per interval missed.
func (s Schedule) after(t, now time.Time) (time.Time, error) {
	switch {
	case s.Cron != "":
		c, err := ParseCron(s.Cron)
		if err != nil {
			return time.Time{}, err
		}
		return c.Next(maxTime(t, now)).UTC().Truncate(time.Millisecond), nil
	case s.Every > 0:
		next := t.Add(s.Every)
		if next.Before(now) {
			next = next.Add(now.Sub(next).Truncate(s.Every) + s.Every)
		}
		return next, nil
	}
	return time.Time{}, nil
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// A Request is what an agent asks to schedule: Message at At (or, for a
// recurrence without At, its first occurrence after now), then every
// Every or on Cron.
type Request struct {
	Message string
	At      time.Time
	Every   time.Duration
	Cron    string
}

// MaxMessageLen is the longest message a schedule may send, in characters.
const MaxMessageLen = 2000

// first checks r and makes the schedule it asks for, id, of the
// conversation conv, made at now.
func (r Request) first(id, conv string, now time.Time) (Schedule, error) {
	s := Schedule{ID: id, Conversation: conv, Message: strings.TrimSpace(r.Message), Every: r.Every, Cron: strings.TrimSpace(r.Cron), Created: now}
	switch {
	case s.Message == "":
		return Schedule{}, apperr.Errorf(apperr.Invalid, "A scheduled message needs words.")
	case len([]rune(s.Message)) > MaxMessageLen:
		return Schedule{}, apperr.Errorf(apperr.Invalid, "A scheduled message is at most %d characters.", MaxMessageLen)
	case s.Every != 0 && s.Cron != "":
		return Schedule{}, apperr.Errorf(apperr.Invalid, "A schedule recurs every so long or on a cron expression, not both.")
	case s.Every < 0 || (s.Every > 0 && s.Every < MinEvery):
		return Schedule{}, apperr.Errorf(apperr.Invalid, "A schedule recurs at most every %v.", MinEvery)
	case s.Every == 0 && s.Cron == "" && r.At.IsZero():
		return Schedule{}, apperr.Errorf(apperr.Invalid, "A schedule needs a time, an interval or a cron expression.")
	}
	if s.Cron != "" {
		if _, err := ParseCron(s.Cron); err != nil {
			return Schedule{}, err
		}
	}
	s.Next = r.At.UTC().Truncate(time.Millisecond)
	if r.At.IsZero() {
		var err error
		if s.Next, err = s.after(now, now); err != nil {
			return Schedule{}, err
		}
	}
	return s, nil
}

// ID makes a schedule's id from a number: turn.Schedule draws it with
// turn.Random, which a replayed turn draws again, so the turn schedules
// once however often it is replayed.
func ID(n uint64) string { return fmt.Sprintf("%016x", n) }

// MessageID is the id of the message of occurrence at of schedule id: the
// same on every node, so a second send of one occurrence is known.
func MessageID(id string, at time.Time) string {
	return "sched-" + id + "-" + strconv.FormatInt(at.UnixMilli(), 10)
}

// Scheduled reports whether a message of id was sent by a schedule, for
// the page's marker.
func Scheduled(messageID string) bool { return strings.HasPrefix(messageID, "sched-") }
