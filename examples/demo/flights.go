package demo

import (
	"context"
	"fmt"
	"slices"

	"github.com/sweatpants-go/sweatpants/elicit"
	"github.com/sweatpants-go/sweatpants/turn"
)

// Flight selection is the demo's own elicit kind, declared the way any
// application declares one: Go types for what goes in and what comes out,
// the actions it allows, and the rules its answers follow. The browser
// shows it with the component registered for "flight" (demoweb), the
// terminal with the prompt registered in demoapp.

// Flight is one flight on offer.
type Flight struct {
	ID      string   `json:"id"`
	Airline string   `json:"airline"`
	From    string   `json:"from"`
	To      string   `json:"to"`
	Departs string   `json:"departs" desc:"Local time of departure, 15:04"`
	Arrives string   `json:"arrives"`
	Price   int      `json:"price" desc:"In euros"`
	Seats   []string `json:"seats" desc:"The seats still free"`
}

// FlightOffer is the input of a flight selection: the flights to pick from.
type FlightOffer struct {
	Flights []Flight `json:"flights" min:"1"`
}

// FlightPick is the answer: a flight and one of its free seats.
type FlightPick struct {
	Flight string `json:"flight" title:"Flight"`
	Seat   string `json:"seat" title:"Seat"`
}

// PickFlight asks the user to choose a flight and a seat on it.
var PickFlight = elicit.NewKind[FlightOffer, FlightPick]("flight", "Choose a flight and a seat",
	elicit.Accept, elicit.Decline, elicit.Cancel, elicit.Other).
	Refine(func(in FlightOffer, out *elicit.Schema) *elicit.Schema {
		for _, f := range in.Flights {
			out.Properties["flight"].Enum = append(out.Properties["flight"].Enum, f.ID)
		}
		return out
	}).
	Check(func(in FlightOffer, p FlightPick) elicit.FieldErrors {
		i := slices.IndexFunc(in.Flights, func(f Flight) bool { return f.ID == p.Flight })
		if i < 0 {
			return elicit.FieldErrors{{Field: "flight", Message: "is not one of the flights offered"}}
		}
		if !slices.Contains(in.Flights[i].Seats, p.Seat) {
			return elicit.FieldErrors{{Field: "seat", Message: fmt.Sprintf("%q is not free on %s; free seats: %v", p.Seat, p.Flight, in.Flights[i].Seats)}}
		}
		return nil
	})

// demoFlights are the flights the showcase offers to dest.
func demoFlights(dest string) FlightOffer {
	return FlightOffer{Flights: []Flight{
		{ID: "SP101", Airline: "Sweatpants Air", From: "Amsterdam", To: dest, Departs: "07:10", Arrives: "09:35", Price: 129, Seats: []string{"3A", "3C", "12F"}},
		{ID: "SP205", Airline: "Sweatpants Air", From: "Amsterdam", To: dest, Departs: "13:45", Arrives: "16:05", Price: 98, Seats: []string{"7B", "21A"}},
		{ID: "LZ440", Airline: "Lazy Jet", From: "Amsterdam", To: dest, Departs: "19:20", Arrives: "21:50", Price: 74, Seats: []string{"30C"}},
	}}
}

// bookFlight offers flights and reports the one the user picked.
func bookFlight(ctx context.Context, dest string) (string, error) {
	offer := demoFlights(dest)
	res, err := turn.Ask(ctx, PickFlight, "Which flight to "+dest+"?", offer)
	if err != nil {
		return "", err
	}
	switch res.Action {
	case elicit.Accept:
		for _, f := range offer.Flights {
			if f.ID == res.Content.Flight {
				return fmt.Sprintf("Booked %s %s → %s, departing %s, seat %s (€%d).", f.ID, f.From, f.To, f.Departs, res.Content.Seat, f.Price), nil
			}
		}
		return "", fmt.Errorf("flight %s vanished", res.Content.Flight) // the check makes this impossible
	case elicit.Other:
		return fmt.Sprintf("You said “%s” — I haven't booked anything.", res.Text), nil
	}
	return outcome(res.Action, "No flight booked."), nil
}
