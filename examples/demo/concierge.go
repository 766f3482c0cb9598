package demo

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/sweatpants-go/sweatpants/agents"
	"github.com/sweatpants-go/sweatpants/elicit"
	"github.com/sweatpants-go/sweatpants/llm"
	"github.com/sweatpants-go/sweatpants/middleware"
	"github.com/sweatpants-go/sweatpants/turn"
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
	// Trips are the trips planned on the branch so far, this one last.
	Trips []TripDetails `json:"trips,omitempty"`
}

var tripForm = elicit.Form[TripDetails]()

// Travel is the agent that plans trips.
var Travel = agents.New("travel", "Plans trips: asks for the details, then drafts an itinerary.")

// Trips are the trips the travel agent planned on the conversation's
// branch, oldest first: its state, which an edit of an earlier message
// takes back to that branch's (the tree inspector shows it).
var Trips = agents.NewState(Travel, "trips", []TripDetails{})

// Pace is how long each step of planning takes; see Options. It and
// Trips are declared before the tools that use them, which are then made
// in the order written: the order the model is offered them.
var Pace = middleware.NewValue[time.Duration]("demo-pace", 0)

// PlanTrip asks the user for trip details through a form, reports progress
// while it works and drafts a plan with the model.
var PlanTrip = agents.NewTool(Travel, "plan-trip", "Ask the user for trip details and draft a plan", planTrip)

// TryCheaper tries a cheaper option for the latest trip, compares the fares
// with the user, and keeps it or goes back (cheaper.go). Declared after
// PlanTrip, it is offered after it: a message that names neither plans.
var TryCheaper = agents.NewTool(Travel, "try-cheaper", "Try a cheaper option for the latest trip, compare the fares, keep it or go back", tryCheaper)

func planTrip(ctx context.Context, req TripRequest) (TripPlan, error) {
	res, err := turn.Ask(ctx, tripForm, "Let's plan your trip. A few details first:", struct{}{})
	// A user who answers in words is heard, and asked for the details again,
	// with the form filled in from what they said.
	var said TripSaid
	for tries := 0; err == nil && res.Action == elicit.Other && tries < 2; tries++ {
		said = said.with(readTripWords(ctx, req.Request, res.Text))
		res, err = askTrip(ctx, fmt.Sprintf("You said “%s”. I need the details in the form to plan:", res.Text), said)
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
		if err := turn.Notify(ctx, s, float64(i+1)/float64(len(steps)+1)); err != nil {
			return TripPlan{}, err
		}
		if err := pause(ctx, Pace.Get(ctx)); err != nil {
			return TripPlan{}, err
		}
	}
	history, err := turn.History(ctx)
	if err != nil {
		return TripPlan{}, err
	}
	msgs := append([]llm.Message{{Role: llm.System, Content: "You are a travel concierge. Draft a short trip plan."}}, history...)
	out, err := turn.Sample(ctx, llm.Request{Messages: append(msgs, llm.Message{Role: llm.User,
		Content: fmt.Sprintf("Plan a trip to %s for %d in %s class%s. Request: %s",
			d.Destination, d.Travellers, d.Cabin, map[bool]string{true: ", with a hotel", false: ", no hotel"}[d.Hotel], req.Request)})})
	if err != nil {
		return TripPlan{}, err
	}
	if err := turn.Notify(ctx, "Done", 1); err != nil {
		return TripPlan{}, err
	}
	// Turns recorded before the concierge kept its trips go on without.
	var trips []TripDetails
	if turn.Version(ctx, "remember-trips", 1) >= 1 {
		err := Trips.Update(ctx, func(ts *[]TripDetails) error { *ts = append(*ts, d); trips = *ts; return nil })
		if err != nil {
			return TripPlan{}, err
		}
	}
	return TripPlan{Planned: true, Details: &d, Outcome: elicit.Accept, Plan: out.Content, Trips: trips}, nil
}

// TripSaid is what a user's words say of the trip form's fields. Every
// field is optional, so the model leaves out what the words do not say
// instead of making it up.
type TripSaid struct {
	Destination string `json:"destination,omitempty" desc:"The city the user wants to visit, if they named one" max:"80"`
	Travellers  int    `json:"travellers,omitempty" desc:"How many people are going, if the user said" max:"9"`
	Cabin       string `json:"cabin,omitempty" desc:"The cabin class, if the user said" enum:"economy,premium,business"`
	Hotel       *bool  `json:"hotel,omitempty" desc:"Whether to book a hotel, if the user said"`
}

// with is w with what later words say on top.
func (w TripSaid) with(later TripSaid) TripSaid {
	if later.Destination != "" {
		w.Destination = later.Destination
	}
	if later.Travellers > 0 {
		w.Travellers = later.Travellers
	}
	if later.Cabin != "" {
		w.Cabin = later.Cabin
	}
	if later.Hotel != nil {
		w.Hotel = later.Hotel
	}
	return w
}

// readTripWords has the model read an answer given in words ("make it 3
// travellers, business class") as typed output, beside the request that
// started the planning, which may name the city. The values the user typed
// into the card before writing are the browser's and never reach the
// server; what they wrote does, so that is what the form is filled from.
// A reply that cannot be read leaves the form as it is: asking again is
// what matters, and the user can fill in the rest.
func readTripWords(ctx context.Context, request, words string) TripSaid {
	out, err := turn.SampleAs[TripSaid](ctx, llm.Request{Messages: []llm.Message{
		{Role: llm.System, Content: "Read what the user said about the trip they want. Leave out whatever they did not say."},
		{Role: llm.User, Content: fmt.Sprintf("%s\n\n%s", request, words)},
	}})
	if err != nil {
		turn.Log(ctx, slog.LevelWarn, "the trip details could not be read from the user's words", "err", err)
		return TripSaid{}
	}
	return out.Value
}

// askTrip asks for the trip form with w's values as its fields' defaults,
// which the page shows filled in. Values the form would refuse are left
// out: a default the user must correct is worse than none.
func askTrip(ctx context.Context, message string, w TripSaid) (elicit.Result[TripDetails], error) {
	req, err := tripForm.Request(message, struct{}{})
	if err != nil {
		return elicit.Result[TripDetails]{}, err
	}
	req.Schema = req.Schema.Clone()
	set := func(name string, v any) {
		p := req.Schema.Properties[name]
		if p == nil {
			return
		}
		if b, err := json.Marshal(v); err == nil && len(p.Validate(b)) == 0 {
			p.Default = v
		}
	}
	if w.Destination != "" {
		set("destination", w.Destination)
	}
	if w.Travellers > 0 {
		set("travellers", w.Travellers)
	}
	if w.Cabin != "" {
		set("cabin", w.Cabin)
	}
	if w.Hotel != nil {
		set("hotel", *w.Hotel)
	}
	resp, err := turn.Elicit(ctx, req)
	if err != nil {
		return elicit.Result[TripDetails]{}, err
	}
	if err := tripForm.Verify(req, resp); err != nil {
		return elicit.Result[TripDetails]{}, err
	}
	return tripForm.Decode(resp)
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

// Concierge plans trips: the model reads each message as a trip to plan
// and calls plan-trip, whose steps take pace each; the plan it returns is
// the reply. The offline model answers small talk ("Are we there yet?") in
// words instead.
func Concierge(pace time.Duration) agents.Assistant {
	loop := agents.Loop{
		System: "You are a travel concierge. Every message is a trip to plan: call plan-trip with what the user asked for; " +
			"when they ask for something cheaper, call try-cheaper.",
		Agents: []*agents.Agent{Travel},
		Choice: llm.ToolRequired,
		Direct: func(results []agents.Result) string {
			r := results[0]
			if r.Err != nil {
				return "I could not plan that trip: " + r.Text()
			}
			if strings.HasSuffix(r.Tool, TryCheaper.Info().Name) {
				var c Cheaper
				if err := json.Unmarshal(r.Output, &c); err != nil {
					return r.Text()
				}
				return c.Said + tripsSoFar(c.Trips)
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
		Side:     sideLoop.Turn,
		Starters: []string{"Plan a trip to Kyoto", "Plan a family trip to Rome"},
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
			d.Destination, people, d.Cabin, hotel, strings.TrimSpace(p.Plan)) + tripsSoFar(p.Trips)
	case elicit.Decline:
		return "No problem — I won't plan a trip. If you change your mind, just send me another message."
	default:
		return "You closed the form, so I've stopped here. Send a message whenever you want to start again."
	}
}
