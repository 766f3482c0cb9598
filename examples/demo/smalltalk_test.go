package demo_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/sweatpants-go/sweatpants/agents"
	"github.com/sweatpants-go/sweatpants/elicit"
	"github.com/sweatpants-go/sweatpants/examples/demo"
	"github.com/sweatpants-go/sweatpants/internal/offline"
	"github.com/sweatpants-go/sweatpants/internal/primitive"
	"github.com/sweatpants-go/sweatpants/llm"
	"github.com/sweatpants-go/sweatpants/middleware"
)

// offlineTurn is what a turn did with the offline model: whether it
// offered the model tools, the tools it called (none of them run) and the
// questions it asked (each dismissed).
type offlineTurn struct {
	mu      sync.Mutex
	offered bool
	called  []string
	asked   []elicit.Request
}

// run runs a's turn on message with the offline model.
func (o *offlineTurn) run(t *testing.T, a agents.Assistant, message string) string {
	t.Helper()
	model := offline.New()
	ctx := primitive.Provide(t.Context(), middleware.Sample, func(ctx context.Context, req llm.Request) (llm.Response, error) {
		o.mu.Lock()
		o.offered = o.offered || len(req.Tools) > 0
		o.mu.Unlock()
		return model.Complete(ctx, req, nil)
	})
	ctx = agents.ToolAPI.Around(ctx, func(middleware.Handler[agents.ToolCall, json.RawMessage]) middleware.Handler[agents.ToolCall, json.RawMessage] {
		return func(_ context.Context, c agents.ToolCall) (json.RawMessage, error) {
			o.mu.Lock()
			defer o.mu.Unlock()
			o.called = append(o.called, c.Tool)
			return nil, errors.New("not run in this test")
		}
	}, middleware.Max)
	ctx = primitive.Provide(ctx, middleware.Elicit, func(_ context.Context, req elicit.Request) (elicit.Response, error) {
		o.mu.Lock()
		defer o.mu.Unlock()
		o.asked = append(o.asked, req)
		return elicit.Response{Action: elicit.Cancel}, nil
	})
	reply, err := a.Turn(ctx, message)
	if err != nil {
		t.Fatal(err)
	}
	return reply
}

// With the offline model, the concierge answers small talk as small talk:
// "Are we there yet?" is no trip to plan. A trip is still planned.
func TestTheConciergeAnswersSmallTalkInWords(t *testing.T) {
	for say, want := range map[string]string{
		"Are we there yet?": "Not quite yet — but we're getting there! What can I do for you?",
		"Hello!":            "Hello! I'm an offline travel concierge. What can I do for you?",
		"Thanks!":           "You're welcome! Anything else I can do for you?",
		"What can you do?": "I'm an offline travel concierge. These are the tools I can use for you:\n" +
			"- plan-trip: Ask the user for trip details and draft a plan\n" +
			"- try-cheaper: Try a cheaper option for the latest trip, compare the fares, keep it or go back",
	} {
		t.Run(say, func(t *testing.T) {
			var o offlineTurn
			reply := o.run(t, demo.Concierge(0), say)
			if len(o.called) > 0 || len(o.asked) > 0 {
				t.Errorf("called %v and asked %d questions, want neither", o.called, len(o.asked))
			}
			if reply != want {
				t.Errorf("reply = %q, want %q", reply, want)
			}
		})
	}
	t.Run("a trip", func(t *testing.T) {
		var o offlineTurn
		o.run(t, demo.Concierge(0), "Plan a trip to Lisbon for two")
		if len(o.called) != 1 || o.called[0] != "plan-trip" {
			t.Errorf("called %v, want plan-trip", o.called)
		}
	})
}

// Each starter the new-chat page offers is a request: with the offline
// model, an agent whose model is offered tools calls one for it.
func TestEveryStarterCallsATool(t *testing.T) {
	for _, a := range demo.Agents(demo.Options{}) {
		for _, s := range a.Starters {
			t.Run(a.Name+"/"+s, func(t *testing.T) {
				var o offlineTurn
				reply := o.run(t, a, s)
				if o.offered && len(o.called) == 0 {
					t.Errorf("no tool called; the reply was %q", strings.TrimSpace(reply))
				}
			})
		}
	}
}
