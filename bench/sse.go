package main

import (
	"bufio"
	"io"
	"regexp"
	"strings"
	"time"
)

// event is one server-sent event as a browser sees it: its type, its id,
// its data lines joined by newlines, and when its terminating blank line
// arrived.
type event struct {
	Name string
	ID   string
	Data string
	At   time.Time
}

// readEvents parses the text/event-stream r and calls emit with each
// complete event, stamped with now() as its blank line is read. It stops
// when emit returns false (returning nil) or when r fails or ends (returning
// the error, io.EOF included). Comment lines and unknown fields are skipped,
// as a browser's EventSource does; an event with neither data nor a type is
// not emitted.
func readEvents(r io.Reader, now func() time.Time, emit func(event) bool) error {
	br := bufio.NewReaderSize(r, 64<<10)
	var (
		ev      event
		data    []string
		hasData bool
	)
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			// io.EOF included: a last line without its newline cannot end
			// an event, so the event it belongs to is dropped.
			return err
		}
		line = strings.TrimSuffix(strings.TrimSuffix(line, "\n"), "\r")
		if line == "" {
			if hasData || ev.Name != "" {
				ev.Data = strings.Join(data, "\n")
				ev.At = now()
				if !emit(ev) {
					return nil
				}
			}
			ev, data, hasData = event{}, data[:0], false
			continue
		}
		field, value := splitField(line)
		switch field {
		case "event":
			ev.Name = value
		case "id":
			ev.ID = value
		case "data":
			data = append(data, value)
			hasData = true
		}
	}
}

// splitField splits an SSE line into its field name and value, dropping the
// single space that may follow the colon. A line starting with a colon is a
// comment and yields an empty field name.
func splitField(line string) (field, value string) {
	field, value, found := strings.Cut(line, ":")
	if !found {
		return line, ""
	}
	return field, strings.TrimPrefix(value, " ")
}

// card is an elicit card found in a patch: its elicit id and state.
type card struct {
	ID    string
	State string
}

var (
	elicitTag = regexp.MustCompile(`<div\b[^>]*\bdata-testid="elicit"[^>]*>`)
	stateAttr = regexp.MustCompile(`\bdata-state="([^"]*)"`)
	idAttr    = regexp.MustCompile(`\bdata-elicit-id="([^"]*)"`)
)

// elicitCards lists the elicit cards in an event's data, in document order.
func elicitCards(data string) []card {
	var cards []card
	for _, tag := range elicitTag.FindAllString(data, -1) {
		id := idAttr.FindStringSubmatch(tag)
		state := stateAttr.FindStringSubmatch(tag)
		if id == nil || state == nil {
			continue
		}
		cards = append(cards, card{ID: id[1], State: state[1]})
	}
	return cards
}

// tracker follows the elicit cards one conversation's stream has shown and
// which of them this browser has answered.
type tracker struct {
	state    map[string]string    // elicit id → latest state seen
	order    []string             // elicit ids in the order first seen
	shownAt  map[string]time.Time // elicit id → arrival of the event first showing it pending
	answered map[string]bool
}

func newTracker() *tracker {
	return &tracker{state: map[string]string{}, shownAt: map[string]time.Time{}, answered: map[string]bool{}}
}

// observe notes the cards an event carries.
func (t *tracker) observe(ev event) {
	for _, c := range elicitCards(ev.Data) {
		if _, seen := t.state[c.ID]; !seen {
			t.order = append(t.order, c.ID)
		}
		t.state[c.ID] = c.State
		if _, shown := t.shownAt[c.ID]; !shown && c.State == "pending" {
			t.shownAt[c.ID] = ev.At
		}
	}
}

// shown returns when the stream first showed elicit id as pending: the
// moment its question reached the browser. It is the zero time for an
// elicit never shown pending.
func (t *tracker) shown(id string) time.Time { return t.shownAt[id] }

// pending returns the oldest elicit shown as pending that has not been
// answered yet.
func (t *tracker) pending() (string, bool) {
	for _, id := range t.order {
		if t.state[id] == "pending" && !t.answered[id] {
			return id, true
		}
	}
	return "", false
}

// markAnswered records that id was answered, so pending skips it even while
// the stream still shows it as pending.
func (t *tracker) markAnswered(id string) { t.answered[id] = true }
