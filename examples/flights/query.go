package flights

import (
	"strings"
	"time"
)

// Query is what a traveller asks for. Places are city names or IATA
// codes, matched without regard to case: "Tokyo", "tokyo" and "HND".
type Query struct {
	From string `json:"from,omitempty"` // empty: from anywhere
	To   string `json:"to"`
	// Date is the day of departure, in UTC: its year, month and day,
	// whatever its location. Zero: any day.
	Date       time.Time `json:"date,omitzero"`
	Passengers int       `json:"passengers,omitempty"` // the seats needed together; 0 means 1
}

// Normalize returns q as a catalogue searches with it — places trimmed,
// Passengers at least 1, Date at midnight UTC of its day — or Invalid.
func (q Query) Normalize() (Query, error) {
	q.From, q.To = strings.TrimSpace(q.From), strings.TrimSpace(q.To)
	if q.To == "" {
		return q, Errorf(Invalid, "Say where to fly to: a city or an airport code.")
	}
	if q.Passengers < 0 {
		return q, Errorf(Invalid, "The number of passengers cannot be negative (got %d).", q.Passengers)
	}
	if q.Passengers == 0 {
		q.Passengers = 1
	}
	if !q.Date.IsZero() {
		y, m, d := q.Date.Date()
		q.Date = time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
	}
	return q, nil
}

// matches reports whether f is a flight q, normalized, asks for, whenever
// it departs.
func (q Query) matches(f Flight) bool {
	if !samePlace(q.To, f.To, f.ToCode) || (q.From != "" && !samePlace(q.From, f.From, f.FromCode)) {
		return false
	}
	if !q.Date.IsZero() && (f.Departs.Before(q.Date) || !f.Departs.Before(q.Date.AddDate(0, 0, 1))) {
		return false
	}
	return f.SeatsLeft >= q.Passengers
}

// samePlace reports whether a traveller's place names the city or the
// airport code.
func samePlace(place, city, code string) bool {
	return strings.EqualFold(place, city) || strings.EqualFold(place, code)
}
