package term

import (
	"os"
	"testing"

	"github.com/sweatpants-go/sweatpants/examples/demo"
	"github.com/sweatpants-go/sweatpants/internal/chat"
	"github.com/sweatpants-go/sweatpants/internal/kindset"
	"github.com/sweatpants-go/sweatpants/internal/offline"
	"github.com/sweatpants-go/sweatpants/internal/registry"
	"github.com/sweatpants-go/sweatpants/internal/store/storetest"
)

// startConcierge runs the concierge at the console as the chat command
// does with the offline model: what is typed while a question waits is
// decided on by the rule.
func startConcierge(t *testing.T) *console {
	t.Helper()
	return startConsoleOn(t, storetest.Open(t), chat.Config{
		Assistants: registry.New(demo.Agents(demo.Options{})...), Kinds: kindset.New(demo.Kinds()...),
		Model: offline.New(), DecideByRule: true,
	}, Config{Agent: "concierge"})
}

// A message typed with /m while a form waits is a message, not a field:
// a side question is answered on the side, and the same field is asked
// again; words the service takes for the answer answer the form.
func TestRunMessageWhileAQuestionWaits(t *testing.T) {
	t.Run("side question", func(t *testing.T) {
		c := startConcierge(t)
		c.expect("you> ")
		c.send("Plan a trip")
		c.expect("/m <words> sends a message meanwhile)")
		c.expect("Destination (up to 80 characters): ")
		c.send("/m What's the weather in Tokyo?")
		c.expect("(Asked on the side — the question above still waits for you.)")
		c.expect("(aside) concierge> The weather in Tokyo today: light rain")
		c.expect("Destination (up to 80 characters): ")
		c.send("Tokyo")
		c.send("2")
		c.send("economy")
		c.send("n")
		c.expect("concierge> Your trip to Tokyo is planned")
	})
	t.Run("taken as the answer", func(t *testing.T) {
		c := startConcierge(t)
		c.expect("you> ")
		c.send("Plan a trip")
		c.expect("Destination (up to 80 characters): ")
		c.send("/m Make it 3 travellers, business class")
		c.expect("(Taken as your answer to the question.)")
		c.expect(`You said “Make it 3 travellers, business class”`)
	})
	t.Run("without words", func(t *testing.T) {
		c := startConcierge(t)
		c.expect("you> ")
		c.send("Plan a trip")
		c.expect("Destination (up to 80 characters): ")
		c.send("/m")
		c.expect("! Write your message after /m.")
		c.expect("Destination (up to 80 characters): ")
	})
}

// /edit at the message prompt sends new words in place of the last
// message, on a new branch, whose turn runs.
func TestRunEditTheLastMessage(t *testing.T) {
	c := startConcierge(t)
	c.expect("you> ")
	c.send("/edit Plan a trip")
	c.expect("! There is no message to edit yet; type one.")
	c.expect("you> ")
	c.send("Plan another trip")
	c.expect("Destination (up to 80 characters): ")
	c.interrupt <- os.Interrupt
	c.expect("(Stopped.)")
	c.expect("you> ")
	c.send("/edit")
	c.expect("! Write the new words after /edit.")
	c.send("/edit Plan a trip to Oslo")
	c.expect("(Edited: your message is now “Plan a trip to Oslo”, on a new branch.)")
	c.expect("Destination (up to 80 characters): ")
	c.send("Oslo")
	c.send("3")
	c.send("business")
	c.send("n")
	c.expect("concierge> Your trip to Oslo is planned: 3 travellers in business class")
}
