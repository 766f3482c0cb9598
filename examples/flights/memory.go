package flights

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"
)

// Memory is a Catalogue held in memory, with the rules of the database's
// catalogue: for tests, and for doubles of agents that book. It is safe for
// concurrent use.
type Memory struct {
	now func() time.Time

	mu       sync.Mutex
	flights  map[string]*Flight
	bookings []Booking      // oldest first
	byKey    map[string]int // index in bookings
	refs     map[string]bool
}

var _ Catalogue = (*Memory)(nil)

// NewMemory returns a catalogue of fs (see Seed) whose clock is now,
// time.Now if nil. It refuses a flight Normalize refuses, or two with one ID.
func NewMemory(fs []Flight, now func() time.Time) (*Memory, error) {
	if now == nil {
		now = time.Now
	}
	m := &Memory{now: now, flights: make(map[string]*Flight, len(fs)), byKey: map[string]int{}, refs: map[string]bool{}}
	for _, f := range fs {
		f, err := f.Normalize()
		if err != nil {
			return nil, err
		}
		if _, dup := m.flights[f.ID]; dup {
			return nil, fmt.Errorf("flight %q is in the catalogue twice", f.ID)
		}
		m.flights[f.ID] = &f
	}
	return m, nil
}

// Search implements Catalogue.
func (m *Memory) Search(ctx context.Context, q Query) ([]Flight, error) {
	q, err := q.Normalize()
	if err != nil {
		return nil, err
	}
	now := m.now()
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []Flight
	for _, f := range m.flights {
		if f.Departs.After(now) && q.matches(*f) {
			out = append(out, clone(f))
		}
	}
	slices.SortFunc(out, compareFlights)
	return out[:min(len(out), MaxResults)], nil
}

// Flight implements Catalogue.
func (m *Memory) Flight(ctx context.Context, id string) (Flight, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	f, ok := m.flights[id]
	if !ok {
		return Flight{}, NoFlight(id)
	}
	return clone(f), nil
}

// Book implements Catalogue.
func (m *Memory) Book(ctx context.Context, owner, key, flightID, seat string) (Booking, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	now := m.now() // under the lock, so that later bookings have later times
	var prior *Booking
	if i, ok := m.byKey[key]; ok {
		prior = &m.bookings[i]
	}
	b, fresh, err := CheckBooking(prior, m.flights[flightID], owner, key, flightID, seat, now)
	if err != nil || !fresh {
		return b, err
	}
	for n := 0; ; n++ {
		if b.Reference = Reference(key, n); !m.refs[b.Reference] {
			break
		}
	}
	f := m.flights[flightID]
	f.SeatsLeft--
	f.Booked = append(f.Booked, b.Seat)
	SortSeats(f.Booked)
	m.refs[b.Reference] = true
	m.byKey[key] = len(m.bookings)
	m.bookings = append(m.bookings, b)
	return b, nil
}

// Bookings implements Catalogue.
func (m *Memory) Bookings(ctx context.Context, owner string) ([]Booking, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []Booking
	for _, b := range slices.Backward(m.bookings) {
		if b.Owner == owner {
			out = append(out, b)
		}
	}
	return out, nil
}

// clone returns a copy of f that shares nothing with it.
func clone(f *Flight) Flight {
	c := *f
	c.Booked = slices.Clone(f.Booked)
	return c
}
