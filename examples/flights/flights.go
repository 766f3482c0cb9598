// Package flights is the flight catalogue the demo's travel agents search
// and book from: flights, the seats left on them, and bookings that a
// retried tool call cannot make twice. It holds the domain only — types,
// rules, a deterministic seed catalogue and an in-memory Catalogue for
// tests; the catalogue the demo runs on, in its database, is in package
// flightsdb.
package flights

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"time"
)

// MaxResults is the most flights one Search returns.
const MaxResults = 20

// Flight is one departure of a scheduled flight. Times are in UTC.
type Flight struct {
	ID        string    `json:"id"`      // the flight number and the day it departs: "SK4035-2026-12-04"
	Airline   string    `json:"airline"` // "SAS"
	Number    string    `json:"number"`  // "SK4035"
	From      string    `json:"from"`    // the city it departs from: "Oslo"
	FromCode  string    `json:"from_code"`
	To        string    `json:"to"` // the city it flies to: "Tokyo"
	ToCode    string    `json:"to_code"`
	Departs   time.Time `json:"departs"`
	Arrives   time.Time `json:"arrives"`
	Price     int       `json:"price"` // per passenger, in minor units of Currency (cents)
	Currency  string    `json:"currency"`
	SeatsLeft int       `json:"seats_left"`
	// Booked lists the seats booked through this catalogue, in seat order.
	// Which seats were free before any booking follows from the flight's
	// ID (see SeatsFor), so these are all a catalogue records per seat.
	Booked []string `json:"booked,omitempty"`
}

// Fare is the flight's price as a person reads it: "€129" or "€129.50".
func (f Flight) Fare() string {
	var sym string
	switch f.Currency {
	case "EUR":
		sym = "€"
	case "USD":
		sym = "$"
	case "GBP":
		sym = "£"
	default:
		sym = f.Currency + " "
	}
	if f.Price%100 == 0 {
		return fmt.Sprintf("%s%d", sym, f.Price/100)
	}
	return fmt.Sprintf("%s%d.%02d", sym, f.Price/100, f.Price%100)
}

// Booking is one seat booked on one flight.
type Booking struct {
	// Reference is what the traveller quotes: "SP-7KQ2XM". It follows
	// from Key, so a retried booking shows the same reference.
	Reference string `json:"reference"`
	FlightID  string `json:"flight_id"`
	Seat      string `json:"seat"`
	Key       string `json:"key"` // the idempotency key it was booked with
	// Owner is who booked it: the catalogue's caller names it (the demo,
	// the conversation), and lists it to that owner alone.
	// It is the catalogue's bookkeeping, not part of what a tool returns.
	Owner   string    `json:"-"`
	Created time.Time `json:"created"`
}

// Catalogue is a place flights are searched and booked. Its errors that a
// caller can word for the user are *Error, with a Code saying which.
type Catalogue interface {
	// Search returns at most MaxResults flights that match q and have not
	// departed, with seats for q.Passengers, sorted by departure, then
	// price, then ID. A query without a destination is Invalid.
	Search(ctx context.Context, q Query) ([]Flight, error)
	// Flight returns the flight with the given ID, or UnknownFlight.
	Flight(ctx context.Context, id string) (Flight, error)
	// Book books seat on flight flightID for owner, once per key: a
	// second call with the same key, owner, flight and seat returns the
	// first booking and changes nothing, so a tool that runs twice books
	// once. The same key for another owner, flight or seat is KeyReused.
	// Otherwise Book refuses, changing nothing, with UnknownFlight,
	// Departed, NoSuchSeat (not on the plane), Full, SeatTaken, or Invalid
	// (an empty key).
	Book(ctx context.Context, owner, key, flightID, seat string) (Booking, error)
	// Bookings returns owner's bookings, newest first: those Book made for
	// owner, and no one else's.
	Bookings(ctx context.Context, owner string) ([]Booking, error)
}

// Normalize returns f as a catalogue keeps it — times in UTC to the
// second, airport codes in upper case — or an error if f is not a flight a
// catalogue can offer. A new flight has no bookings yet.
func (f Flight) Normalize() (Flight, error) {
	f.FromCode, f.ToCode = strings.ToUpper(f.FromCode), strings.ToUpper(f.ToCode)
	f.Departs, f.Arrives = f.Departs.UTC().Truncate(time.Second), f.Arrives.UTC().Truncate(time.Second)
	switch {
	case f.ID == "" || f.Number == "" || f.Airline == "":
		return f, fmt.Errorf("flight %q: ID, number and airline are required", f.ID)
	case f.From == "" || f.To == "" || f.FromCode == "" || f.ToCode == "":
		return f, fmt.Errorf("flight %q: both places need a city and a code", f.ID)
	case !f.Arrives.After(f.Departs):
		return f, fmt.Errorf("flight %q: arrives before it departs", f.ID)
	case f.Price < 0 || f.Currency == "":
		return f, fmt.Errorf("flight %q: price needs to be at least 0 and have a currency", f.ID)
	case f.SeatsLeft < 0 || f.SeatsLeft > Capacity:
		return f, fmt.Errorf("flight %q: %d seats left, want 0 to %d", f.ID, f.SeatsLeft, Capacity)
	case len(f.Booked) > 0:
		return f, fmt.Errorf("flight %q: a new flight has no bookings", f.ID)
	}
	return f, nil
}

// compareFlights orders flights as Search returns them: by departure, then
// price, then ID.
func compareFlights(a, b Flight) int {
	return cmp.Or(a.Departs.Compare(b.Departs), cmp.Compare(a.Price, b.Price), strings.Compare(a.ID, b.ID))
}

// CheckBooking decides a catalogue's answer to Book(owner, key, flightID,
// seat) at now, so that every catalogue answers alike. prior is the booking
// already made with key, if any; f is the flight with ID flightID, nil if
// there is none. It returns prior for a repeated booking (fresh false), a
// refusal, or the booking to record (fresh true): everything but its
// Reference, which the catalogue picks with Reference.
func CheckBooking(prior *Booking, f *Flight, owner, key, flightID, seat string, now time.Time) (b Booking, fresh bool, err error) {
	if key == "" {
		return Booking{}, false, Errorf(Invalid, "A booking needs an idempotency key.")
	}
	normal, seatErr := NormalizeSeat(seat)
	if prior != nil {
		if prior.Owner != owner {
			// Not said whose, nor what it booked: that is another owner's.
			return Booking{}, false, Errorf(KeyReused, "This booking's key was used for another booking; book with a key of your own.")
		}
		if prior.FlightID != flightID || prior.Seat != normal {
			return Booking{}, false, Errorf(KeyReused, "This booking's key already booked seat %s on %s; it cannot book seat %q on %s too.",
				prior.Seat, prior.FlightID, seat, flightID)
		}
		return *prior, false, nil
	}
	switch {
	case f == nil:
		return Booking{}, false, NoFlight(flightID)
	case !f.Departs.After(now):
		return Booking{}, false, Errorf(Departed, "Flight %s departed at %s UTC; it can no longer be booked.",
			f.Number, f.Departs.Format("2006-01-02 15:04"))
	case seatErr != nil:
		return Booking{}, false, seatErr
	case f.SeatsLeft < 1:
		return Booking{}, false, Errorf(Full, "Flight %s on %s is full.", f.Number, f.Departs.Format("Mon 2 Jan"))
	case !slices.Contains(SeatsFor(*f), normal):
		return Booking{}, false, Errorf(SeatTaken, "Seat %s on flight %s is taken; %d other seats are free.",
			normal, f.Number, f.SeatsLeft)
	}
	return Booking{FlightID: f.ID, Seat: normal, Key: key, Owner: owner, Created: now.UTC().Truncate(time.Millisecond)}, true, nil
}
