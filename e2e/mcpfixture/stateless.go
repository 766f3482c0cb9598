package main

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/sweatpants-go/sweatpants/agents"
	"github.com/sweatpants-go/sweatpants/elicit"
	"github.com/sweatpants-go/sweatpants/turn"
)

// The tools the scenarios of revision 2026-07-28 call. Their questions are
// plain turn.Ask: the binding says them as that revision's input requests
// (input_required), as it says them as elicitation/create to a client of
// 2025-11-25. Those that need the client's sampling or roots are not here:
// a tool has no way to ask for them.

type callerName struct {
	Name string `json:"name"`
}

type confirmation struct {
	OK bool `json:"ok"`
}

type favourite struct {
	Color string `json:"color"`
}

var (
	nameForm    = elicit.Form[callerName]()
	confirmForm = elicit.Form[confirmation]()
	colorForm   = elicit.Form[favourite]()
)

func addStatelessTools(a *agents.Agent) {
	agents.NewTool(a, "test_input_required_result_elicitation", "Asks the caller's name", func(ctx context.Context, _ none) (agents.Content, error) {
		r, err := turn.Ask(ctx, nameForm, "What is your name?", struct{}{})
		if err != nil {
			return agents.Content{}, err
		}
		return text(fmt.Sprintf("Hello, %s!", r.Content.Name)), nil
	})
	confirm := func(name, done string) {
		agents.NewTool(a, name, "Asks for a confirmation", func(ctx context.Context, _ none) (agents.Content, error) {
			r, err := turn.Ask(ctx, confirmForm, "Please confirm", struct{}{})
			if err != nil {
				return agents.Content{}, err
			}
			return text(fmt.Sprintf("%s (action=%s)", done, r.Action)), nil
		})
	}
	confirm("test_input_required_result_request_state", "state-ok: requestState received and confirmation accepted")
	confirm("test_input_required_result_tampered_state", "state-ok: requestState received and confirmation accepted")
	agents.NewTool(a, "test_input_required_result_multi_round", "Asks a name, then a colour", func(ctx context.Context, _ none) (agents.Content, error) {
		who, err := turn.Ask(ctx, nameForm, "Step 1: What is your name?", struct{}{})
		if err != nil {
			return agents.Content{}, err
		}
		color, err := turn.Ask(ctx, colorForm, "Step 2: What is your favorite color?", struct{}{})
		if err != nil {
			return agents.Content{}, err
		}
		return text(fmt.Sprintf("Multi-round complete: %s likes %s", who.Content.Name, color.Content.Color)), nil
	})
	agents.NewTool(a, "test_streaming_elicitation", "Returns a plain result", func(context.Context, none) (agents.Content, error) {
		return text("stream observed: result frames only, no top-level requests"), nil
	})
	agents.NewTool(a, "test_logging_tool", "Logs a line", func(ctx context.Context, _ none) (agents.Content, error) {
		turn.Log(ctx, slog.LevelInfo, "test_logging_tool executed")
		return text("Log attempted."), nil
	})
}

// text is a result of one text block.
func text(s string) agents.Content { return agents.Content{Blocks: []agents.Block{agents.Text(s)}} }
