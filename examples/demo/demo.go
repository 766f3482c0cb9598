// Package demo holds the agents the binary ships with: a travel concierge,
// a showcase of every elicit kind, and a short survey. They are written the
// way an application writes its agents, with the framework in
// agents, and declare one elicit kind of their own (PickFlight).
package demo

import (
	"time"

	"github.com/sweatpants-go/sweatpants/agents"
	"github.com/sweatpants-go/sweatpants/elicit"
	"github.com/sweatpants-go/sweatpants/policy"
	"github.com/sweatpants-go/sweatpants/protocol"
)

// Options tune the demo agents.
type Options struct {
	// Pace is how long each progress step of the concierge takes, so that a
	// person can watch the progress bar move; zero runs at full speed.
	Pace time.Duration
	// AssistantFirst lists the general assistant right after the chat (the
	// default), ahead of the scripted agents: for a real model, which can
	// hold a conversation the offline one cannot.
	AssistantFirst bool
	// ApprovalExpiry is how long the chat's booking approval (BookSeat)
	// waits for the traveller before it expires and nothing is booked;
	// zero waits for ever, or as long as the program's default says.
	ApprovalExpiry time.Duration
}

// Agents returns the assistants the binary ships with, the default first.
func Agents(opts Options) []agents.Assistant {
	general := Assistant(Travel, Weather, Packer, Diner, Figures, Notes, Reminders)
	chat := Chat(opts.Pace)
	if opts.ApprovalExpiry > 0 {
		// An ask as the default would ask, saying how long it waits.
		chat.Policy = append(chat.Policy, policy.Rule{Action: policy.Ask, Tool: FlightAgent.Name + "/" + BookSeat.Info().Name,
			Expires: opts.ApprovalExpiry, Source: "the demo's --demo-approval-expiry"})
	}
	if opts.AssistantFirst {
		return []agents.Assistant{chat, general, Concierge(opts.Pace), Showcase(), Survey()}
	}
	return []agents.Assistant{chat, Concierge(opts.Pace), Showcase(), Survey(), general}
}

// Kinds lists the elicit kinds the demo agents ask with, so that the
// server checks their answers by each kind's rules: the built-in kinds,
// and the demo's own (OwnKinds).
func Kinds() []elicit.Registered {
	return append(elicit.BuiltinKinds(), OwnKinds()...)
}

// OwnKinds lists the demo's own kinds, for app.Config.Kinds: the flight
// selection and the methods of its protocol Device.
func OwnKinds() []elicit.Registered {
	return append([]elicit.Registered{PickFlight}, protocol.Kinds(Device)...)
}
