package term

import (
	"testing"
)

// A block the agent tried and went back from is said at the terminal, as
// on the page: the question it asked is answered there, and the line says
// what was tried and decided.
func TestRunSaysWhatTheAgentTriedAndDecided(t *testing.T) {
	c := startConsole(t, "concierge")
	c.expect("you> ")
	c.send("Plan a trip to Rome")
	c.expect("Destination")
	c.send("Rome")
	c.expect("Travellers")
	c.send("2")
	c.expect("Cabin class")
	c.send("business")
	c.expect("Book a hotel too?")
	c.send("y")
	c.expect("Your trip to Rome is planned")
	c.expect("you> ")
	c.send("Try a cheaper option")
	c.expect("Switch to it?")
	c.send("n")
	c.expect("(Tried a cheaper option, then went back.)")
	c.expect("and went back: your plan is as it was.")
}
