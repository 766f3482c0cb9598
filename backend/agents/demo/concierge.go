package demo

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/sweatpants-go/sweatpants/backend/agents"
	"github.com/sweatpants-go/sweatpants/backend/elicit"
	"github.com/sweatpants-go/sweatpants/backend/llm"
	"github.com/sweatpants-go/sweatpants/backend/runtime"
)

// TripDetails is the form the concierge asks for.
type TripDetails struct {
	Destination string `json:"destination" title:"Destination" desc:"The city you want to visit" min:"2" max:"80"`
	Travellers  int    `json:"travellers" title:"Travellers" desc:"How many people are going" min:"1" max:"9" default:"2"`
	Cabin       string `json:"cabin" title:"Cabin class" enum:"economy,premium,business" default:"economy"`
	Hotel       bool   `json:"hotel" title:"Book a hotel too?"`
}

// TripRequest is the input of the plan-trip tool: what the user asked for.
type TripRequest struct {
	Request string `json:"request" desc:"What the user said they want"`
}

// TripPlan is what the plan-trip tool returns.
type TripPlan struct {
	Planned bool          `json:"planned"`
	Details *TripDetails  `json:"details,omitempty"`
	Outcome elicit.Action `json:"outcome"`
	Plan    string        `json:"plan"`
}

var tripForm = elicit.Form[TripDetails]()

// Travel is the agent that plans trips.
var Travel = agents.New("travel", "Plans trips: asks for the details, then drafts an itinerary.")

// PlanTrip asks the user for trip details through a form, reports progress
// while it works and drafts a plan with the model.
var PlanTrip = agents.NewTool(Travel, "plan-trip", "Ask the user for trip details and draft a plan", planTrip)

// Pace is how long each step of planning takes; see Options.
var Pace = runtime.NewValue[time.Duration]("demo-pace", 0)

func planTrip(ctx context.Context, req TripRequest) (TripPlan, error) {
	res, err := runtime.Ask(ctx, tripForm, "Let's plan your trip. A few details first:", struct{}{})
	// A user who answers in words is heard, and asked for the details again.
	for tries := 0; err == nil && res.Action == elicit.Other && tries < 2; tries++ {
		res, err = runtime.Ask(ctx, tripForm, fmt.Sprintf("You said “%s”. I need the details in the form to plan:", res.Text), struct{}{})
	}
	if err != nil {
		return TripPlan{}, err
	}
	if res.Action != elicit.Accept {
		return TripPlan{Outcome: res.Action}, nil
	}
	d := res.Content
	steps := []string{"Checking flights", "Comparing fares", "Looking at hotels", "Drafting your plan"}
	if !d.Hotel {
		steps = []string{"Checking flights", "Comparing fares", "Drafting your plan"}
	}
	for i, s := range steps {
		if err := runtime.Notify(ctx, s, float64(i+1)/float64(len(steps)+1)); err != nil {
			return TripPlan{}, err
		}
		if err := pause(ctx, Pace.Get(ctx)); err != nil {
			return TripPlan{}, err
		}
	}
	history, err := runtime.History(ctx)
	if err != nil {
		return TripPlan{}, err
	}
	msgs := append([]llm.Message{{Role: llm.System, Content: "You are a travel concierge. Draft a short trip plan."}}, history...)
	out, err := runtime.Sample(ctx, llm.Request{Messages: append(msgs, llm.Message{Role: llm.User,
		Content: fmt.Sprintf("Plan a trip to %s for %d in %s class%s. Request: %s",
			d.Destination, d.Travellers, d.Cabin, map[bool]string{true: ", with a hotel", false: ", no hotel"}[d.Hotel], req.Request)})})
	if err != nil {
		return TripPlan{}, err
	}
	if err := runtime.Notify(ctx, "Done", 1); err != nil {
		return TripPlan{}, err
	}
	return TripPlan{Planned: true, Details: &d, Outcome: elicit.Accept, Plan: out.Content}, nil
}

func pause(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Concierge is the default assistant with the offline model: the model
// reads each message as a trip to plan and calls plan-trip, whose steps
// take pace each; the plan it returns is the reply.
func Concierge(pace time.Duration) agents.Assistant {
	loop := agents.Loop{
		System: "You are a travel concierge. Every message is a trip to plan: call plan-trip with what the user asked for.",
		Agents: []*agents.Agent{Travel},
		Choice: llm.ToolRequired,
		Direct: func(results []agents.Result) string {
			r := results[0]
			if r.Err != nil {
				return "I could not plan that trip: " + r.Text()
			}
			var plan TripPlan
			if err := json.Unmarshal(r.Output, &plan); err != nil {
				return r.Text()
			}
			return describePlan(plan)
		},
	}
	return agents.Assistant{
		Name:        "concierge",
		Description: "Plans a trip: asks for details in a form, shows progress, then answers.",
		Turn: func(ctx context.Context, message string) (string, error) {
			return loop.Turn(Pace.With(ctx, pace), message)
		},
		// Beside a trip being planned, the concierge answers what a
		// traveller asks: the weather, for one.
		Side: sideLoop.Turn,
	}
}

var sideLoop = agents.Loop{
	System: "You are a travel concierge. The user asks something on the side while a trip is being planned; " +
		"answer it briefly, with a tool when one can find it out.",
	Agents: []*agents.Agent{Weather},
	Direct: func(results []agents.Result) string {
		var w CityWeather
		if r := results[0]; r.Err == nil && json.Unmarshal(r.Output, &w) == nil {
			return w.String()
		}
		return results[0].Text()
	},
}

func describePlan(p TripPlan) string {
	switch p.Outcome {
	case elicit.Accept:
		d := p.Details
		people := "1 traveller"
		if d.Travellers != 1 {
			people = fmt.Sprintf("%d travellers", d.Travellers)
		}
		hotel := "flights only, no hotel"
		if d.Hotel {
			hotel = "flights and a hotel"
		}
		return fmt.Sprintf("Your trip to %s is planned: %s in %s class, %s.\n\n%s",
			d.Destination, people, d.Cabin, hotel, strings.TrimSpace(p.Plan))
	case elicit.Decline:
		return "No problem — I won't plan a trip. If you change your mind, just send me another message."
	default:
		return "You closed the form, so I've stopped here. Send a message whenever you want to start again."
	}
}
