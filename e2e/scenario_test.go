package e2e

import (
	"strings"
	"testing"
)

// One conversation, the same over every way into it: a form asked, a side
// question while it waits, the form answered, a second form stopped, the
// stopped message edited into a third, the program behind it killed (kill
// -9) while that form waits, started again on the same database, and the
// form answered: the turn goes on and finishes once. Each transport runs
// it through a driver (scenario_feed_test.go, scenario_term_test.go), one
// server per transport, and the assertions are these, for all of them.
func runScenario(t *testing.T, d driver) {
	d.start("concierge")

	// A form.
	if sent := d.send("Plan a trip"); sent != "" {
		t.Fatalf("the first message did %q, want it to start a turn", sent)
	}
	trip := d.question()
	if !strings.Contains(trip.Message, "Let's plan your trip") {
		t.Fatalf("asked %q, want the trip form", trip.Message)
	}

	// A side question while the form waits: answered on the side, and the
	// form still waits for its answer.
	if sent := d.send("What's the weather in Tokyo?"); sent != "side" {
		t.Fatalf("the weather question while the form waits did %q, want side", sent)
	}
	side := d.end()
	if !side.Aside || side.Status != "replied" || !strings.Contains(side.Text, "Tokyo today: light rain") {
		t.Fatalf("the side question ended %+v, want an aside reply with Tokyo's weather", side)
	}
	d.answer(trip, tripAnswer{Destination: "Tokyo", Travellers: 2, Cabin: "economy"})
	planned := d.end()
	if planned.Aside || planned.Status != "replied" || !strings.Contains(planned.Text, "Your trip to Tokyo is planned: 2 travellers in economy class, flights only, no hotel.") {
		t.Fatalf("the answered form ended %+v, want the plan for Tokyo", planned)
	}

	// Stop while a form waits: the turn ends stopped.
	if sent := d.send("Plan another trip"); sent != "" {
		t.Fatalf("the message after the reply did %q, want it to start a turn", sent)
	}
	d.question()
	d.stop()
	if stopped := d.end(); stopped.Aside || stopped.Status != "stopped" {
		t.Fatalf("the stopped turn ended %+v, want stopped", stopped)
	}

	// The stopped message edited: a new branch, whose turn asks again.
	d.edit("Plan a trip to Oslo")
	oslo := d.question()
	if !strings.Contains(oslo.Message, "Let's plan your trip") {
		t.Fatalf("after the edit asked %q, want the trip form", oslo.Message)
	}

	// kill -9 while the form waits; started again on the same database,
	// the form is answered and the turn finishes, once.
	d.crash()
	d.restart()
	d.answer(oslo, tripAnswer{Destination: "Oslo", Travellers: 3, Cabin: "business"})
	end := d.end()
	if end.Aside || end.Status != "replied" || !strings.Contains(end.Text, "Your trip to Oslo is planned: 3 travellers in business class, flights only, no hotel.") {
		t.Fatalf("the form answered after the crash ended %+v, want the plan for Oslo", end)
	}
	if n := d.replies("Your trip to Oslo is planned"); n != 1 {
		t.Fatalf("the plan for Oslo came %d times, want once", n)
	}
}

// driver is a client of one transport, as a user or a program on it sees
// the conversation. Each method waits (with a deadline) for what it needs,
// and fails the test when the transport refuses a command.
type driver interface {
	// start starts a conversation with agent, no message sent yet.
	start(agent string)
	// send sends a message and returns what it did (inbound.Sent: "" when
	// it started a turn, "side" when asked on the side, ...).
	send(text string) string
	// question waits for the next question asked.
	question() asked
	// answer answers the trip form q.
	answer(q asked, a tripAnswer)
	// stop stops the turn that waits or works.
	stop()
	// edit edits the last message that started a turn into text.
	edit(text string)
	// end waits for the next run to end and says how it ended.
	end() runEnd
	// crash kills the program that holds the conversation (kill -9), and
	// restart starts it again on the same database and rejoins the
	// conversation where it was.
	crash()
	restart()
	// replies counts the replies seen so far, across restarts, that hold
	// text.
	replies(text string) int
}

// asked is a question as a transport shows it: its id where the transport
// gives one, and its words.
type asked struct {
	ID      string
	Message string
}

// tripAnswer is the concierge's trip form, filled.
type tripAnswer struct {
	Destination string
	Travellers  int
	Cabin       string
	Hotel       bool
}

// runEnd is how a run ended: replied, stopped or failed; its text; and
// whether it answered a side question.
type runEnd struct {
	Status string
	Text   string
	Aside  bool
}
