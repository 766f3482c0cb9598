package demo

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/sweatpants-go/sweatpants/agents"
	"github.com/sweatpants-go/sweatpants/elicit"
	"github.com/sweatpants-go/sweatpants/internal/primitive"
	"github.com/sweatpants-go/sweatpants/llm"
	"github.com/sweatpants-go/sweatpants/middleware"
)

// fakeUser answers every elicit with content and records what was asked.
type fakeUser struct {
	answer elicit.Response
	asked  []elicit.Request
}

func (u *fakeUser) core(_ context.Context, req elicit.Request) (elicit.Response, error) {
	u.asked = append(u.asked, req)
	return u.answer, nil
}

// world provides the primitives a turn needs, as a runner would.
func world(t *testing.T, u *fakeUser) (context.Context, *[]string) {
	t.Helper()
	var progress []string
	ctx := primitive.Provide(t.Context(), middleware.Elicit, u.core)
	// The model calls plan-trip with the user's words when it is offered
	// tools, and drafts the plan when it is not.
	ctx = primitive.Provide(ctx, middleware.Sample, func(_ context.Context, req llm.Request) (llm.Response, error) {
		if len(req.Tools) > 0 {
			words, _ := json.Marshal(TripRequest{Request: req.Messages[len(req.Messages)-1].Content})
			return llm.Response{ToolCalls: []llm.ToolCall{{ID: "c1", Name: "plan-trip", Arguments: string(words)}}}, nil
		}
		return llm.Response{Content: "Day 1: arrive."}, nil
	})
	ctx = primitive.Provide(ctx, middleware.History, func(context.Context, struct{}) ([]llm.Message, error) { return nil, nil })
	ctx = primitive.Provide(ctx, middleware.Notify, func(_ context.Context, p middleware.Progress) (struct{}, error) {
		progress = append(progress, p.Message)
		return struct{}{}, nil
	})
	states := map[primitive.StateKey]json.RawMessage{}
	ctx = primitive.Provide(ctx, primitive.StateGetAPI, func(_ context.Context, k primitive.StateKey) (json.RawMessage, error) { return states[k], nil })
	ctx = primitive.Provide(ctx, primitive.StateSetAPI, func(_ context.Context, ch primitive.StateChange) (struct{}, error) {
		states[ch.StateKey] = ch.Value
		return struct{}{}, nil
	})
	return ctx, &progress
}

func TestToolInputSchemaComesFromItsType(t *testing.T) {
	in := PlanTrip.Info().Input
	if in.Type != "object" || in.Properties["request"] == nil || in.Properties["request"].Type != "string" {
		t.Fatalf("plan-trip input schema = %+v, want an object with a string \"request\"", in)
	}
	if !slices.Equal(in.Required, []string{"request"}) {
		t.Errorf("required = %v, want [request]", in.Required)
	}
	if got := in.Properties["request"].Description; got != "What the user said they want" {
		t.Errorf("description = %q", got)
	}
	if tools := Travel.Tools(); len(tools) != 2 || tools[0].Name != "plan-trip" || tools[1].Name != "try-cheaper" || tools[0].Agent != "travel" {
		t.Errorf("travel's tools = %+v", tools)
	}
}

func TestConciergePlansWithWhatTheFormReturned(t *testing.T) {
	u := &fakeUser{answer: elicit.Response{Action: elicit.Accept,
		Content: json.RawMessage(`{"destination":"Oslo","travellers":2,"cabin":"premium","hotel":false}`)}}
	ctx, progress := world(t, u)
	reply, err := Concierge(0).Turn(ctx, "a trip north")
	if err != nil {
		t.Fatal(err)
	}
	if want := "Your trip to Oslo is planned: 2 travellers in premium class, flights only, no hotel."; !strings.HasPrefix(reply, want) {
		t.Errorf("reply = %q, want it to start %q", reply, want)
	}
	if len(u.asked) != 1 || u.asked[0].Kind != elicit.FormKind || u.asked[0].Agent != "travel" {
		t.Errorf("asked = %+v, want one form from the travel agent", u.asked)
	}
	if want := []string{"Checking flights", "Comparing fares", "Drafting your plan", "Done"}; !slices.Equal(*progress, want) {
		t.Errorf("progress = %v, want %v", *progress, want)
	}
}

func TestConciergeDeclinePath(t *testing.T) {
	ctx, progress := world(t, &fakeUser{answer: elicit.Response{Action: elicit.Decline}})
	reply, err := Concierge(0).Turn(ctx, "a trip")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(reply, "No problem") || len(*progress) != 0 {
		t.Errorf("reply = %q, progress = %v; want the decline path and no work", reply, *progress)
	}
}

func TestParentScopeSubstitutesAnAgentForItsChildren(t *testing.T) {
	u := &fakeUser{answer: elicit.Response{Action: elicit.Decline}}
	ctx, _ := world(t, u)
	fake := Travel.Instantiate(agents.Implement(PlanTrip, func(_ context.Context, in TripRequest) (TripPlan, error) {
		return TripPlan{Planned: true, Outcome: elicit.Accept, Plan: "stub plan for " + in.Request,
			Details: &TripDetails{Destination: "Nowhere", Travellers: 1, Cabin: "economy"}}, nil
	}))

	err := primitive.WithScope(ctx, func(ctx context.Context, s *primitive.Scope) error {
		child := agents.Use(ctx, fake)
		reply, err := Concierge(0).Turn(child, "anything")
		if err != nil {
			return err
		}
		if !strings.Contains(reply, "Your trip to Nowhere is planned: 1 traveller") || !strings.Contains(reply, "stub plan for anything") {
			t.Errorf("substituted reply = %q", reply)
		}
		if len(u.asked) != 0 {
			t.Errorf("the substitute ran, yet the default asked the user %d times", len(u.asked))
		}
		// The scope's parent still resolves the real agent.
		reply, err = Concierge(0).Turn(ctx, "anything")
		if err != nil {
			return err
		}
		if !strings.HasPrefix(reply, "No problem") || len(u.asked) != 1 {
			t.Errorf("outside the substitution: reply = %q, asked %d", reply, len(u.asked))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestToolCallsPassThroughMiddleware(t *testing.T) {
	ctx, _ := world(t, &fakeUser{answer: elicit.Response{Action: elicit.Cancel}})
	var seen []agents.ToolCall
	ctx = agents.ToolAPI.Around(ctx, func(next middleware.Handler[agents.ToolCall, json.RawMessage]) middleware.Handler[agents.ToolCall, json.RawMessage] {
		return func(ctx context.Context, c agents.ToolCall) (json.RawMessage, error) {
			seen = append(seen, c)
			return next(ctx, c)
		}
	}, middleware.Max)
	if _, err := Concierge(0).Turn(ctx, "hello"); err != nil {
		t.Fatal(err)
	}
	if len(seen) != 1 || seen[0].Agent != "travel" || seen[0].Tool != "plan-trip" || string(seen[0].Input) != `{"request":"hello"}` {
		t.Errorf("middleware saw %+v", seen)
	}
}
