package demo

import (
	"context"
	"fmt"
	"strings"

	"github.com/sweatpants-go/sweatpants/agents"
	"github.com/sweatpants-go/sweatpants/elicit"
	"github.com/sweatpants-go/sweatpants/turn"
)

// CheaperRequest is the input of the try-cheaper tool: nothing, it works
// on the latest trip planned.
type CheaperRequest struct{}

// Cheaper is what try-cheaper returns: the option it tried with both
// fares, whether the user kept it, and the trips planned afterwards.
type Cheaper struct {
	Tried *TripDetails  `json:"tried,omitempty"`
	Was   int           `json:"was_fare,omitempty"`
	Fare  int           `json:"fare,omitempty"`
	Kept  bool          `json:"kept"`
	Said  string        `json:"said"`
	Trips []TripDetails `json:"trips"`
}

// tryCheaper is TryCheaper's code: on a branch of its own (agents.Fork),
// the plan changes to the cheaper option and the user compares the fares;
// kept, the branch is the flow; refused, the concierge goes back to the
// plan as it was.
func tryCheaper(ctx context.Context, _ CheaperRequest) (Cheaper, error) {
	trips, err := Trips.Get(ctx)
	if err != nil {
		return Cheaper{}, err
	}
	if len(trips) == 0 {
		return Cheaper{Said: "There is no trip planned on this version of the conversation yet, so there is nothing to make cheaper."}, nil
	}
	was := trips[len(trips)-1]
	less, ok := cheaperThan(was)
	if !ok {
		return Cheaper{Said: fmt.Sprintf("Your trip to %s is as cheap as it gets: economy class, flights only.", was.Destination), Trips: trips}, nil
	}
	out := Cheaper{Tried: &less, Was: tripFare(was), Fare: tripFare(less)}
	tried, err := agents.Fork(ctx, "a cheaper option", func(ctx context.Context) (bool, error) {
		if err := Trips.Update(ctx, func(ts *[]TripDetails) error { (*ts)[len(*ts)-1] = less; return nil }); err != nil {
			return false, err
		}
		res, err := turn.Ask(ctx, elicit.Confirm, fmt.Sprintf("%s would cost €%s instead of €%s. Switch to it?", capital(option(less)), money(out.Fare), money(out.Was)), elicit.ConfirmInput{})
		return err == nil && res.Action == elicit.Accept && res.Content.Yes, err
	})
	if err != nil {
		if tried != nil {
			return out, tried.Back(ctx)
		}
		return out, err
	}
	if out.Kept = tried.Value; out.Kept {
		err = tried.Forward(ctx)
		out.Said = fmt.Sprintf("Done: %s, €%s instead of €%s.", option(less), money(out.Fare), money(out.Was))
	} else {
		err = tried.Back(ctx)
		out.Said = fmt.Sprintf("I tried %s (€%s instead of €%s) and went back: your plan is as it was.", option(less), money(out.Fare), money(out.Was))
	}
	if err != nil {
		return out, err
	}
	out.Trips, err = Trips.Get(ctx)
	return out, err
}

// cheaperThan is d a step cheaper: a cabin class down, or, in economy,
// without the hotel.
func cheaperThan(d TripDetails) (TripDetails, bool) {
	switch {
	case d.Cabin == "business":
		d.Cabin = "premium"
	case d.Cabin == "premium":
		d.Cabin = "economy"
	case d.Hotel:
		d.Hotel = false
	default:
		return d, false
	}
	return d, true
}

// tripFare is what the demo's trips cost, in euros: made up, but the same every
// time.
func tripFare(d TripDetails) int {
	per := map[string]int{"economy": 180, "premium": 420, "business": 960}[d.Cabin]
	if d.Hotel {
		per += 240
	}
	return per * max(d.Travellers, 1)
}

// option words a trip as an option: "premium class with a hotel to Rome".
func option(d TripDetails) string {
	with := "flights only"
	if d.Hotel {
		with = "with a hotel"
	}
	return fmt.Sprintf("%s class %s to %s", d.Cabin, with, d.Destination)
}

// capital is s begun with a capital letter, for the start of a sentence.
func capital(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// money writes n euros with a thousands separator.
func money(n int) string {
	s := fmt.Sprint(n)
	if len(s) > 3 {
		s = s[:len(s)-3] + "," + s[len(s)-3:]
	}
	return s
}

// tripsSoFar lists the trips planned on this version of the conversation,
// for the reply: the concierge's state, which an edit takes back to that
// branch's.
func tripsSoFar(trips []TripDetails) string {
	if len(trips) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("\n\nYour trips on this version of the conversation:")
	for _, d := range trips {
		people := "1 traveller"
		if d.Travellers != 1 {
			people = fmt.Sprintf("%d travellers", d.Travellers)
		}
		fmt.Fprintf(&b, "\n- %s, %s: €%s", capital(option(d)), people, money(tripFare(d)))
	}
	return b.String()
}
