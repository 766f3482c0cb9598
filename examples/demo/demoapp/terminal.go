package demoapp

import (
	"fmt"

	"github.com/sweatpants-go/sweatpants/elicit"
	"github.com/sweatpants-go/sweatpants/examples/demo"
	"github.com/sweatpants-go/sweatpants/terminal"
)

// promptFlight asks the demo's flight kind at the terminal: the flights as
// a numbered list, then the free seats of the one picked.
func promptFlight(q *terminal.Question) (elicit.Response, error) {
	var offer demo.FlightOffer
	if err := q.Input(&offer); err != nil {
		return elicit.Response{}, err
	}
	flights := make([]string, len(offer.Flights))
	for i, f := range offer.Flights {
		flights[i] = fmt.Sprintf("%s  %s  %s %s → %s %s  €%d  (%d free)",
			f.ID, f.Airline, f.From, f.Departs, f.To, f.Arrives, f.Price, len(f.Seats))
	}
	i, err := q.Pick("Flight", flights)
	if err != nil {
		return elicit.Response{}, err
	}
	f := offer.Flights[i]
	q.Printf("Free seats on %s:\n", f.ID)
	j, err := q.Pick("Seat", f.Seats)
	if err != nil {
		return elicit.Response{}, err
	}
	return terminal.Accept(demo.FlightPick{Flight: f.ID, Seat: f.Seats[j]})
}
