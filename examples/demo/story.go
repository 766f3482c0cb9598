package demo

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/sweatpants-go/sweatpants/agents"
	"github.com/sweatpants-go/sweatpants/elicit"
	"github.com/sweatpants-go/sweatpants/examples/flights"
	"github.com/sweatpants-go/sweatpants/llm"
	"github.com/sweatpants-go/sweatpants/middleware"
	"github.com/sweatpants-go/sweatpants/policy"
	"github.com/sweatpants-go/sweatpants/turn"
)

// The seed's story: a chat that books flights. Three agents, written as an
// application writes its own with the public API:
//
//   - the flight agent searches the catalogue (Catalogue, the app's
//     database) and books a seat on a flight;
//   - the weather agent (weather.go) tells the weather of a city or of
//     where the user is;
//   - the chat assistant is the front: the model reads each message and
//     calls bookFlight (a trip in words) or the weather, and answers side
//     questions with the weather agent while a question waits.

// Catalogue is where the flight agent searches and books: the app puts its
// database here for every turn (its root scope); a test may put a
// flights.Memory, or swap the flight agent itself (agents.Use).
var Catalogue = middleware.NewValue[flights.Catalogue]("flight-catalogue", nil)

// FlightAgent searches and books flights.
var FlightAgent = agents.New("flight", "Searches and books flights.")

// FlightSearch is what the flight agent searches for.
type FlightSearch struct {
	To   string `json:"to" title:"To" desc:"The city to fly to" min:"1" max:"80"`
	From string `json:"from,omitempty" title:"From" desc:"The city to fly from; empty for anywhere" max:"80"`
	Date string `json:"date,omitempty" title:"Date" desc:"The day to fly, as YYYY-MM-DD; empty for any day" format:"date"`
}

// SearchFlights finds flights with seats left, soonest first.
var SearchFlights = agents.NewTool(FlightAgent, "search", "Search the flights to a city on a day",
	func(ctx context.Context, q FlightSearch) ([]flights.Flight, error) {
		cat := Catalogue.Get(ctx)
		if cat == nil {
			return nil, errors.New("no flight catalogue is set up")
		}
		query := flights.Query{From: q.From, To: q.To}
		if q.Date != "" {
			d, err := time.Parse(time.DateOnly, q.Date)
			if err != nil {
				return nil, fmt.Errorf("the date %q is not a day (YYYY-MM-DD)", q.Date)
			}
			query.Date = d
		}
		return cat.Search(ctx, query)
	})

// SeatBooking is a seat to book on a flight, once per key.
type SeatBooking struct {
	Flight string `json:"flight" desc:"The flight's id"`
	Seat   string `json:"seat" desc:"The seat, such as 14A"`
	Key    string `json:"key" desc:"Books once per key: the same key again returns the first booking"`
}

// BookSeat books a seat on a flight: it changes data and spends money,
// which the permission policy asks the user about before each call.
var BookSeat = agents.NewTool(FlightAgent, "book", "Book a seat on a flight",
	func(ctx context.Context, b SeatBooking) (flights.Booking, error) {
		cat := Catalogue.Get(ctx)
		if cat == nil {
			return flights.Booking{}, errors.New("no flight catalogue is set up")
		}
		// Booked for the conversation, which the turn's runner names
		// (turn.ConversationID): never for an owner the call's arguments,
		// which a user may edit, say.
		return cat.Book(ctx, turn.ConversationID(ctx), b.Key, b.Flight, b.Seat)
	}).Does(policy.Writes, policy.Spends).Titled("Book a seat").Fixes("key").Describes(describeBooking)

// describeBooking words a booking for the traveller asked to approve it:
// the seat, the flight's route, when it leaves and its fare, rather than
// the flight's id.
func describeBooking(ctx context.Context, b SeatBooking) (string, error) {
	cat := Catalogue.Get(ctx)
	if cat == nil {
		return "", errors.New("no flight catalogue is set up")
	}
	f, err := cat.Flight(ctx, b.Flight)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("Seat %s on %s %s, %s → %s, %s, %s", b.Seat, f.Airline, f.Number, f.From, f.To,
		f.Departs.Format("Mon 2 Jan 15:04"), f.Fare()), nil
}

// ChatAgent holds the chat's own tools.
var ChatAgent = agents.New("chat", "Talks with the traveller and books their flights.")

// Booked are the references of the bookings made on the conversation's
// branch: the chat agent's state. A booking is made in the world, not in
// the conversation, and does not go away with a branch; this state is how
// the agent knows which bookings this version of the conversation made, and
// says so of the others rather than show them as if made here.
var Booked = agents.NewState(ChatAgent, "booked", []string{})

// TripWords is a trip as the user described it.
type TripWords struct {
	Request string `json:"request" desc:"The trip the user asked for, in their own words"`
}

// TripAsk is what a trip in words asks for, read by the model.
type TripAsk struct {
	Destination string `json:"destination" desc:"The city to fly to"`
	Origin      string `json:"origin,omitempty" desc:"The city to fly from, if the user said"`
	Date        string `json:"date,omitempty" desc:"The day to fly, as YYYY-MM-DD" format:"date"`
}

// Describe says what TripAsk is to the model, for its second try.
func (TripAsk) Describe() string { return "where and when the user wants to fly" }

// BookFlight books a flight for a trip described in words: it reads where
// and when, searches, lets the user pick a flight and a seat, and books,
// which the permission policy asks the user to allow (BookSeat).
var BookFlight = agents.NewTool(ChatAgent, "bookFlight", "Book a flight for a trip the user describes in words",
	func(ctx context.Context, w TripWords) (string, error) {
		today := turn.Now(ctx).UTC()
		ask, err := turn.SampleAs[TripAsk](ctx, llm.Request{Messages: []llm.Message{
			{Role: llm.System, Content: fmt.Sprintf("Today is %s (a %s). Read where and when the user wants to fly.", today.Format(time.DateOnly), today.Weekday())},
			{Role: llm.User, Content: w.Request},
		}})
		if err != nil {
			return "", err
		}
		trip := ask.Value
		if strings.TrimSpace(trip.Destination) == "" {
			return "Where would you like to fly to?", nil
		}
		if err := turn.Notify(ctx, "Searching flights…", 0.3); err != nil {
			return "", err
		}
		if err := pause(ctx, Pace.Get(ctx)); err != nil {
			return "", err
		}
		found, err := SearchFlights.Call(ctx, FlightSearch{To: trip.Destination, From: trip.Origin, Date: trip.Date})
		if err != nil {
			return "", err
		}
		when := ""
		if d, err := time.Parse(time.DateOnly, trip.Date); err == nil {
			when = " on " + d.Format("Monday 2 January")
		}
		if len(found) == 0 {
			from := ""
			if trip.Origin != "" {
				from = " from " + trip.Origin
			}
			return fmt.Sprintf("I found no flights%s to %s%s with seats left.", from, trip.Destination, when), nil
		}
		// The key is drawn once and recorded, so a booking retried after a
		// restart books the same seat once.
		key := fmt.Sprintf("%016x", turn.Random(ctx))
		offer := offerOf(found)
		pick, err := turn.Ask(ctx, PickFlight, fmt.Sprintf("Which flight to %s%s?", trip.Destination, when), offer)
		if err != nil {
			return "", err
		}
		switch pick.Action {
		case elicit.Accept:
		case elicit.Other:
			return fmt.Sprintf("You said “%s” — I haven't booked anything.", pick.Text), nil
		default:
			return outcome(pick.Action, "No flight booked."), nil
		}
		f := flightOf(found, pick.Content.Flight)
		b, err := BookSeat.Call(ctx, SeatBooking{Flight: f.ID, Seat: pick.Content.Seat, Key: key})
		if err != nil {
			if fe, ok := errors.AsType[*flights.Error](err); ok {
				return "I could not book it: " + fe.Message, nil
			}
			if d, ok := errors.AsType[*agents.DeniedError](err); ok {
				if d.Expired {
					return "Not booked: nobody approved it in time, so the approval expired.", nil
				}
				return "Not booked: you did not allow it.", nil
			}
			return "", err
		}
		// Turns recorded before the agent kept its bookings go on without.
		if turn.Version(ctx, "remember-bookings", 1) >= 1 {
			if err := Booked.Update(ctx, func(refs *[]string) error { *refs = append(*refs, b.Reference); return nil }); err != nil {
				return "", err
			}
		}
		return fmt.Sprintf("Booked: %s %s → %s, %s, seat %s, %s. Your reference is %s.",
			f.Number, f.From, f.To, f.Departs.Format("Mon 2 Jan 15:04"), b.Seat, f.Fare(), b.Reference), nil
	})

// ListBookings lists the bookings the conversation made so far, on any of
// its branches, newest first: no one else's.
var ListBookings = agents.NewTool(ChatAgent, "listBookings", "List the bookings made so far",
	func(ctx context.Context, _ struct{}) (string, error) {
		cat := Catalogue.Get(ctx)
		if cat == nil {
			return "", errors.New("no flight catalogue is set up")
		}
		bs, err := cat.Bookings(ctx, turn.ConversationID(ctx))
		if err != nil || len(bs) == 0 {
			return "You have no bookings yet.", err
		}
		here, err := Booked.Get(ctx)
		if err != nil {
			return "", err
		}
		lines := []string{fmt.Sprintf("You have %d booking(s):", len(bs))}
		for _, b := range bs {
			line := fmt.Sprintf("- %s: %s, seat %s", b.Reference, b.FlightID, b.Seat)
			if f, err := cat.Flight(ctx, b.FlightID); err == nil {
				line = fmt.Sprintf("- %s: %s %s → %s, %s, seat %s", b.Reference, f.Number, f.From, f.To, f.Departs.Format("Mon 2 Jan 15:04"), b.Seat)
			}
			if !slices.Contains(here, b.Reference) {
				line += " (not booked on this version of the conversation)"
			}
			lines = append(lines, line)
		}
		return strings.Join(lines, "\n"), nil
	})

// offerOf is the flight picker's offer of found: the first few flights,
// each with a few of its free seats.
func offerOf(found []flights.Flight) FlightOffer {
	var offer FlightOffer
	for _, f := range found[:min(len(found), 5)] {
		seats := flights.SeatsFor(f)
		offer.Flights = append(offer.Flights, Flight{
			ID: f.ID, Airline: f.Airline, From: f.From, To: f.To,
			Departs: f.Departs.Format("Mon 2 Jan 15:04"), Arrives: f.Arrives.Format("15:04"),
			Price: f.Price / 100, Seats: seats[:min(len(seats), 6)],
		})
	}
	return offer
}

func flightOf(found []flights.Flight, id string) flights.Flight {
	for _, f := range found {
		if f.ID == id {
			return f
		}
	}
	return flights.Flight{} // the picker's check makes this impossible
}

// chatLoop is the chat's model: each message is a trip to book or a
// question about the weather.
var chatLoop = agents.Loop{
	System: "You are a travel chat. When the user wants a flight, call bookFlight with their words; " +
		"listBookings shows what they booked. When they ask about the weather, call getWeather for a named place " +
		"or getLocalWeather for where they are.",
	Agents: []*agents.Agent{ChatAgent, Weather},
	Direct: directReply,
}

// chatSide answers beside a waiting question: the weather, or the model's
// own words.
var chatSide = agents.Loop{
	System: "You are a travel chat. The user asks something on the side while booking; answer briefly, " +
		"with getWeather or getLocalWeather for the weather.",
	Agents: []*agents.Agent{Weather},
	Direct: directReply,
}

// directReply words the tools' results as the reply: a booking's sentence,
// the weather.
func directReply(results []agents.Result) string {
	var out []string
	for _, r := range results {
		var w CityWeather
		if r.Err == nil && jsonInto(r.Output, &w) && w.City != "" {
			out = append(out, w.String())
			continue
		}
		out = append(out, r.Text())
	}
	return strings.Join(out, "\n\n")
}

// Chat is the story's front: it books flights and tells the weather. pace
// is how long its search takes to show, so a person can watch it (and stop
// it).
func Chat(pace time.Duration) agents.Assistant {
	return agents.Assistant{
		Name:        "chat",
		Description: "Books flights and tells the weather, as you ask in your own words.",
		Turn: func(ctx context.Context, message string) (string, error) {
			return chatLoop.Turn(Pace.With(ctx, pace), message)
		},
		Side:     chatSide.Turn,
		Starters: []string{"Book a flight to Lisbon next Friday", "What's the weather here?"},
	}
}

// jsonInto reads raw into v and reports whether it could.
func jsonInto(raw json.RawMessage, v any) bool { return raw != nil && json.Unmarshal(raw, v) == nil }
