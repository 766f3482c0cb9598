package agents

import (
	"context"
	"time"

	"github.com/sweatpants-go/sweatpants/policy"
)

// Assistant is what a conversation talks to: each user message starts a
// turn of its Turn function, and the text the turn returns is the reply.
// An assistant's turn uses agents — named sets of tools (Agent) — and the
// primitives of package turn; the two are kept apart because a tool set can
// serve many assistants, and a test can swap one for a double.
type Assistant struct {
	Name        string
	Description string
	Turn        func(ctx context.Context, message string) (string, error)
	// Side answers a side question: a message the user sends beside the
	// flow, while a question of the flow waits or in a side thread the user
	// opened. Its history (turn.History) is the conversation up to where
	// the thread hangs, then the thread. Nil lets the model answer, with
	// no tools. An assistant whose Turn is a fixed flow names
	// here how it answers anything else.
	Side func(ctx context.Context, message string) (string, error)
	// Input is what a message sent while a turn works does to it; the zero
	// value interrupts it (see InputPolicy).
	Input InputPolicy
	// Policy narrows the program's permission policy for this assistant's
	// turns, tools of other agents they call included: its deny, finalDeny
	// and ask rules apply beside the program's, its allow lifts nothing
	// the program or the default would ask (package policy). Set Source
	// on each rule to say where it comes from ("agent concierge").
	Policy []policy.Rule
	// Deadline, when set, is how long a turn may take, from its message:
	// past it the turn ends timed out, its partial reply kept as a stop
	// keeps it, and the questions it waits on withdrawn. The time counts
	// while it waits and while the program is down; it is kept as a timer
	// of the conversation, so it holds after a restart and on any node.
	Deadline time.Duration
	// Starters are a few first messages the page offers on a conversation
	// with this assistant not started yet, one click each to send: say what
	// it is good at, in the words a user would type ("Book a flight to
	// Lisbon next Friday"). One or two are best; none shows none.
	Starters []string
	// Unlisted keeps the assistant off the pages' choice of assistants:
	// one a binding starts its conversations with itself, such as the one
	// that runs MCP clients' tool calls.
	Unlisted bool
}

// InputPolicy is what a message sent while a turn works does to it.
type InputPolicy int

const (
	// Interrupt stops the running turn (recorded as stopped) and starts a
	// new one with the message, as people expect of a chat. A message sent
	// soon after the one before (within two seconds), while its turn has
	// recorded and shown nothing, joins it instead: the turn starts again
	// with both.
	Interrupt InputPolicy = iota
	// Queue keeps the message until the running turn ends, then starts a
	// turn with it (with every message queued meanwhile, joined).
	Queue
)

// sideSystem is the system prompt of the model's answer to a side
// question an assistant does not say how to answer.
const sideSystem = "You are a helpful assistant. The user asks something on the side " +
	"of a task in progress; answer it briefly and plainly."

// SideTurn is what answers a's side questions: its Side, or, where it says
// nothing, the model from the conversation, with no tools. The server and
// the deploy check's dry run answer them alike.
func (a Assistant) SideTurn() func(ctx context.Context, message string) (string, error) {
	if a.Side != nil {
		return a.Side
	}
	return func(ctx context.Context, message string) (string, error) {
		loop := Loop{System: sideSystem}
		return loop.Turn(ctx, message)
	}
}
