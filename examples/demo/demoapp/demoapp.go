// Package demoapp is the demo as an application: the app.Config that
// bin/sweatpants (cmd/web) hands to app.Main, written as any application
// writes its own. It adds the demo's flight kind with its browser and
// terminal forms, the demo's methods (a photo, a desktop notification)
// with their browser module and terminal prompters, a --demo-pace flag,
// the flight catalogue as a plugin (its tables in the database, stocked,
// and in every turn's scope), and a Setup that lists the general
// assistant higher with a real model.
package demoapp

import (
	"context"
	"errors"
	"flag"
	"time"

	"github.com/sweatpants-go/sweatpants/agents"
	"github.com/sweatpants-go/sweatpants/app"
	"github.com/sweatpants-go/sweatpants/examples/demo"
	"github.com/sweatpants-go/sweatpants/examples/demo/demoweb"
	"github.com/sweatpants-go/sweatpants/plugin"
	"github.com/sweatpants-go/sweatpants/terminal"
)

// DefaultApprovalExpiry is how long the booking's approval waits for the
// traveller unless --demo-approval-expiry says otherwise: a seat is not
// held for ever.
const DefaultApprovalExpiry = 10 * time.Minute

// DefaultPace is how long each progress step of the demo agents takes
// unless --demo-pace says otherwise: long enough to watch a bar move.
const DefaultPace = 350 * time.Millisecond

// Config is the demo's application: the demo agents, the flight kind,
// --demo-pace (SWEATPANTS_DEMO_PACE) and --demo-approval-expiry
// (SWEATPANTS_DEMO_APPROVAL_EXPIRY) for serve and chat.
func Config() app.Config {
	pace := DefaultPace             // --demo-pace writes here; Setup reads it
	expiry := DefaultApprovalExpiry // --demo-approval-expiry writes here; Setup reads it
	return app.Config{
		Name: "sweatpants",
		// The help names these; Setup makes them again with the pace.
		Assistants: demo.Agents(demo.Options{}),
		// The tools served over MCP (docs/mcp.md), the showcase's questions
		// among them.
		Agents:     []*agents.Agent{demo.Weather, demo.Notes, demo.Travel, demo.FlightAgent, demo.Packer, demo.Diner, demo.Demos()},
		Kinds:      demo.OwnKinds(),
		Components: demoweb.Components(),
		Modules:    demoweb.Modules(),
		Prompters: map[string]terminal.Prompter{
			demo.PickFlight.Name:    terminal.PromptFunc(promptFlight),
			demo.TakePhoto.Name:     terminal.PromptFunc(promptPhoto),
			demo.NotifyDesktop.Name: terminal.PromptFunc(promptNotify),
		},
		Flags: func(fs *flag.FlagSet) {
			pace = DefaultPace
			fs.Var(paceFlag{&pace}, "demo-pace", "how long each progress step of the demo agents takes")
			expiry = DefaultApprovalExpiry
			fs.Var(paceFlag{&expiry}, "demo-approval-expiry",
				"how long the chat's flight booking waits for its approval before it expires and nothing is booked (0: for ever)")
		},
		Plugins: []plugin.Plugin{&catalogue{}},
		Setup: func(ctx context.Context, env app.Env) (app.Turns, error) {
			return setup(env, pace, expiry), nil
		},
	}
}

// setup makes the demo agents with pace, the booking's approval expiring
// after expiry. With a real model the general
// assistant comes right after the chat, ahead of the scripted agents: it
// can hold a conversation the offline one cannot.
func setup(env app.Env, pace, expiry time.Duration) app.Turns {
	return app.Turns{Assistants: demo.Agents(demo.Options{Pace: pace, AssistantFirst: !env.Offline, ApprovalExpiry: expiry})}
}

// paceFlag is a duration of zero or more.
type paceFlag struct{ p *time.Duration }

func (f paceFlag) Set(s string) error {
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return errors.New("want a duration such as 350ms or 0")
	}
	*f.p = d
	return nil
}

func (f paceFlag) String() string {
	if f.p == nil {
		return ""
	}
	return f.p.String()
}
