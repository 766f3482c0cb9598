// Package flightstest is the contract of a flights.Catalogue as one test
// suite, run against the in-memory catalogue and the database's alike, so
// that an agent tested against one meets the same rules in the other.
package flightstest

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sweatpants-go/sweatpants/examples/flights"
)

// Open returns a catalogue of fs, and of nothing else, whose clock is now.
// It fails t if it cannot.
type Open func(t *testing.T, fs []flights.Flight, now func() time.Time) flights.Catalogue

// Start is the suite's time at the first reading of its clock: Tuesday
// 1 December 2026, 08:00 UTC.
var Start = time.Date(2026, 12, 1, 8, 0, 0, 0, time.UTC)

// Clock is a clock that moves one second on at each reading, so that
// later bookings have later times. It is safe for concurrent use.
type Clock struct {
	mu sync.Mutex
	t  time.Time
}

// NewClock returns a clock whose first reading is at.
func NewClock(at time.Time) *Clock { return &Clock{t: at} }

// Now returns the clock's time and moves it on a second.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := c.t
	c.t = c.t.Add(time.Second)
	return t
}

// flight returns a flight for the suite's catalogue: number on day (of
// December 2026) at hh:mm UTC, 12 hours in the air.
func flight(number, from, fromCode, to, toCode string, day, hh, mm, euros, seats int) flights.Flight {
	departs := time.Date(2026, 12, day, hh, mm, 0, 0, time.UTC)
	return flights.Flight{
		ID: fmt.Sprintf("%s-2026-12-%02d", number, day), Airline: "Suite Air", Number: number,
		From: from, FromCode: fromCode, To: to, ToCode: toCode,
		Departs: departs, Arrives: departs.Add(12 * time.Hour), Price: euros * 100, Currency: "EUR", SeatsLeft: seats,
	}
}

// Catalogue returns the flights the suite runs on. Flights to Tokyo leave
// on Friday 4 December and around it; London has more flights than a
// search returns.
func Catalogue() []flights.Flight {
	fs := []flights.Flight{
		flight("SK1", "Oslo", "OSL", "Tokyo", "HND", 4, 6, 0, 900, 20),
		flight("UA2", "Oslo", "OSL", "Tokyo", "HND", 4, 6, 0, 800, 5), // as early as SK1, cheaper, later in the alphabet
		flight("BA5", "London", "LHR", "Tokyo", "HND", 4, 10, 0, 850, 30),
		flight("SK3", "Oslo", "OSL", "Tokyo", "HND", 4, 23, 59, 700, 1), // the last minute of the day; one seat
		flight("SK1", "Oslo", "OSL", "Tokyo", "HND", 5, 0, 0, 900, 40),  // the first minute of the next
		flight("SK1", "Oslo", "OSL", "Tokyo", "HND", 3, 6, 0, 900, 40),
		flight("SK9", "Oslo", "OSL", "Tokyo", "HND", 1, 7, 0, 600, 40), // departed before the clock starts
		flight("SK7", "Oslo", "OSL", "Osaka", "KIX", 4, 6, 0, 950, 12),
		flight("AF9", "Oslo", "OSL", "Paris", "CDG", 4, 9, 0, 150, 0), // full
		flight("AA1", "Paris", "CDG", "Lisbon", "LIS", 4, 9, 0, 120, 10),
		flight("AA2", "Paris", "CDG", "Lisbon", "LIS", 4, 9, 0, 120, 10), // ties with AA1 but for the ID
	}
	for i := range 25 {
		fs = append(fs, flight(fmt.Sprintf("LX%d", 100+i), "Zurich", "ZRH", "London", "LHR", 2+i/12, 7+i%12, 0, 100+i, 50))
	}
	return fs
}

// Run runs the suite against the catalogues open returns.
func Run(t *testing.T, open Open) {
	t.Run("Search", func(t *testing.T) { testSearch(t, open) })
	t.Run("Flight", func(t *testing.T) { testFlight(t, open) })
	t.Run("Book", func(t *testing.T) { testBook(t, open) })
	t.Run("BookConcurrently", func(t *testing.T) { testBookConcurrently(t, open) })
	t.Run("References", func(t *testing.T) { testReferences(t, open) })
	t.Run("Bookings", func(t *testing.T) { testBookings(t, open) })
	t.Run("BookingsAreTheirOwners", func(t *testing.T) { testBookingsAreTheirOwners(t, open) })
}

func testSearch(t *testing.T, open Open) {
	ctx := context.Background()
	cat := open(t, Catalogue(), NewClock(Start).Now)
	friday := time.Date(2026, 12, 4, 0, 0, 0, 0, time.UTC)
	tokyo := []string{"SK1-2026-12-03", "UA2-2026-12-04", "SK1-2026-12-04", "BA5-2026-12-04", "SK3-2026-12-04", "SK1-2026-12-05"}
	var london []string
	for i := range flights.MaxResults {
		london = append(london, fmt.Sprintf("LX%d-2026-12-%02d", 100+i, 2+i/12))
	}
	for _, tc := range []struct {
		name string
		q    flights.Query
		want []string
	}{
		{"a city, any day, not what departed", flights.Query{To: "Tokyo"}, tokyo},
		{"an airport code in lower case", flights.Query{To: "hnd"}, tokyo},
		{"a city in mixed case, padded", flights.Query{To: "  tOKYo "}, tokyo},
		{"from a city", flights.Query{From: "oslo", To: "Tokyo"}, []string{"SK1-2026-12-03", "UA2-2026-12-04", "SK1-2026-12-04", "SK3-2026-12-04", "SK1-2026-12-05"}},
		{"from an airport code", flights.Query{From: "LHR", To: "TOKYO"}, []string{"BA5-2026-12-04"}},
		{"on a day, its first and last minutes included", flights.Query{To: "Tokyo", Date: friday}, []string{"UA2-2026-12-04", "SK1-2026-12-04", "BA5-2026-12-04", "SK3-2026-12-04"}},
		{"on a day named in another zone: its own date counts", flights.Query{From: "Oslo", To: "Tokyo", Date: time.Date(2026, 12, 4, 20, 0, 0, 0, time.FixedZone("HST", -10*3600))},
			[]string{"UA2-2026-12-04", "SK1-2026-12-04", "SK3-2026-12-04"}},
		{"the first minute of a day is on it", flights.Query{To: "Tokyo", Date: friday.AddDate(0, 0, 1)}, []string{"SK1-2026-12-05"}},
		{"time of day in Date is ignored", flights.Query{To: "Tokyo", Date: friday.Add(23 * time.Hour)}, []string{"UA2-2026-12-04", "SK1-2026-12-04", "BA5-2026-12-04", "SK3-2026-12-04"}},
		{"a day without flights", flights.Query{To: "Tokyo", Date: friday.AddDate(0, 0, 7)}, nil},
		{"enough seats for everyone", flights.Query{To: "Tokyo", Date: friday, Passengers: 6}, []string{"SK1-2026-12-04", "BA5-2026-12-04"}},
		{"exactly the seats left", flights.Query{To: "Tokyo", Date: friday, Passengers: 5}, []string{"UA2-2026-12-04", "SK1-2026-12-04", "BA5-2026-12-04"}},
		{"a full flight is not offered", flights.Query{To: "Paris"}, nil},
		{"same departure and price: by ID", flights.Query{To: "Lisbon"}, []string{"AA1-2026-12-04", "AA2-2026-12-04"}},
		{"at most MaxResults, the earliest", flights.Query{To: "London"}, london},
		{"a place nobody flies to", flights.Query{To: "Atlantis"}, nil},
		{"a city's name is not matched in part", flights.Query{To: "Tok"}, nil},
		{"the origin is not the destination", flights.Query{To: "Oslo"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := cat.Search(ctx, tc.q)
			if err != nil {
				t.Fatalf("Search(%+v): %v", tc.q, err)
			}
			if ids := ids(got); !slices.Equal(ids, tc.want) {
				t.Errorf("Search(%+v) = %v, want %v", tc.q, ids, tc.want)
			}
		})
	}
	for _, tc := range []struct {
		name string
		q    flights.Query
	}{
		{"no destination", flights.Query{From: "Oslo"}},
		{"a blank destination", flights.Query{To: " \t"}},
		{"negative passengers", flights.Query{To: "Tokyo", Passengers: -1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := cat.Search(ctx, tc.q)
			wantRefusal(t, err, flights.Invalid)
			if len(got) != 0 {
				t.Errorf("Search(%+v) returned %d flights with its error", tc.q, len(got))
			}
		})
	}
	t.Run("each result as Flight returns it", func(t *testing.T) {
		got, err := cat.Search(ctx, flights.Query{To: "Tokyo"})
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range got {
			want, err := cat.Flight(ctx, f.ID)
			if err != nil {
				t.Fatal(err)
			}
			if !sameFlight(f, want) {
				t.Errorf("Search gave %+v, Flight gives %+v", f, want)
			}
		}
	})
}

func testFlight(t *testing.T, open Open) {
	ctx := context.Background()
	fs := Catalogue()
	cat := open(t, fs, NewClock(Start).Now)
	for _, want := range fs {
		got, err := cat.Flight(ctx, want.ID)
		if err != nil {
			t.Fatalf("Flight(%q): %v", want.ID, err)
		}
		if !sameFlight(got, want) {
			t.Errorf("Flight(%q) = %+v, want %+v", want.ID, got, want)
		}
	}
	for _, id := range []string{"", "SK1", "sk1-2026-12-04", "SK1-2026-12-06"} {
		_, err := cat.Flight(ctx, id)
		wantRefusal(t, err, flights.UnknownFlight)
	}
}

// state is what a catalogue holds, to tell that a refusal changed nothing.
type state struct {
	flights  []flights.Flight
	bookings []flights.Booking
}

func snapshot(t *testing.T, cat flights.Catalogue) state {
	t.Helper()
	ctx := context.Background()
	var s state
	for _, f := range Catalogue() {
		got, err := cat.Flight(ctx, f.ID)
		if err != nil {
			t.Fatal(err)
		}
		s.flights = append(s.flights, got)
	}
	var err error
	if s.bookings, err = cat.Bookings(ctx, ""); err != nil {
		t.Fatal(err)
	}
	return s
}

func (s state) equal(o state) bool {
	return slices.EqualFunc(s.flights, o.flights, sameFlight) && slices.EqualFunc(s.bookings, o.bookings, sameBooking)
}

func testBook(t *testing.T, open Open) {
	ctx := context.Background()
	fresh := func(t *testing.T) (flights.Catalogue, flights.Flight) {
		cat := open(t, Catalogue(), NewClock(Start).Now)
		f, err := cat.Flight(ctx, "SK1-2026-12-04")
		if err != nil {
			t.Fatal(err)
		}
		return cat, f
	}

	t.Run("a free seat", func(t *testing.T) {
		cat, f := fresh(t)
		seat := flights.SeatsFor(f)[3]
		b, err := cat.Book(ctx, "", "trip-1", f.ID, seat)
		if err != nil {
			t.Fatal(err)
		}
		if b.FlightID != f.ID || b.Seat != seat || b.Key != "trip-1" {
			t.Errorf("Book = %+v, want flight %s, seat %s, key trip-1", b, f.ID, seat)
		}
		if want := flights.Reference("trip-1", 0); b.Reference != want {
			t.Errorf("reference %q, want %q", b.Reference, want)
		}
		if !regexp.MustCompile(`^SP-[2-9A-HJKMNP-TV-Z]{6}$`).MatchString(b.Reference) {
			t.Errorf("reference %q is not SP- and six unambiguous letters or digits", b.Reference)
		}
		if b.Created.Before(Start) || b.Created.After(Start.Add(time.Hour)) || b.Created.Location() != time.UTC {
			t.Errorf("created %v, want a UTC time of the catalogue's clock", b.Created)
		}
		after, err := cat.Flight(ctx, f.ID)
		if err != nil {
			t.Fatal(err)
		}
		if after.SeatsLeft != f.SeatsLeft-1 || !slices.Equal(after.Booked, []string{seat}) {
			t.Errorf("after booking %s: %d seats left, booked %v; want %d, [%s]", seat, after.SeatsLeft, after.Booked, f.SeatsLeft-1, seat)
		}
		free := flights.SeatsFor(after)
		if slices.Contains(free, seat) || len(free) != after.SeatsLeft {
			t.Errorf("free seats after booking %s: %v (%d seats left)", seat, free, after.SeatsLeft)
		}
		got, err := cat.Bookings(ctx, "")
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 1 || !sameBooking(got[0], b) {
			t.Errorf("Bookings = %+v, want [%+v]", got, b)
		}
	})

	t.Run("a seat written loosely", func(t *testing.T) {
		cat, f := fresh(t)
		seat := flights.SeatsFor(f)[0]
		b, err := cat.Book(ctx, "", "trip-1", f.ID, " "+strings.ToLower(seat)+" ")
		if err != nil {
			t.Fatal(err)
		}
		if b.Seat != seat {
			t.Errorf("booked seat %q, want %q", b.Seat, seat)
		}
	})

	t.Run("again with the same key: the first booking, nothing changed", func(t *testing.T) {
		cat, f := fresh(t)
		seat := flights.SeatsFor(f)[0]
		first, err := cat.Book(ctx, "", "trip-1", f.ID, seat)
		if err != nil {
			t.Fatal(err)
		}
		before := snapshot(t, cat)
		for range 3 {
			again, err := cat.Book(ctx, "", "trip-1", f.ID, strings.ToLower(seat))
			if err != nil {
				t.Fatalf("booking again: %v", err)
			}
			if !sameBooking(again, first) {
				t.Errorf("booking again = %+v, want the first booking %+v", again, first)
			}
		}
		if after := snapshot(t, cat); !after.equal(before) {
			t.Errorf("booking again changed the catalogue: %+v, was %+v", after, before)
		}
	})

	// Each refusal leaves the catalogue as it was. The catalogue has one
	// booking already, of seat taken on f.
	type refusal struct {
		name        string
		key, flight string
		seat        func(f flights.Flight, taken string) string // the seat to book, given f and the seat booked
		want        flights.Code
	}
	refusals := []refusal{
		{"a seat someone booked", "trip-2", "SK1-2026-12-04", func(_ flights.Flight, taken string) string { return taken }, flights.SeatTaken},
		{"a seat sold before the catalogue opened", "trip-2", "SK1-2026-12-04", func(f flights.Flight, _ string) string { return soldSeat(f) }, flights.SeatTaken},
		{"the same key for another seat", "trip-1", "SK1-2026-12-04", func(f flights.Flight, _ string) string { return flights.SeatsFor(f)[0] }, flights.KeyReused},
		{"the same key for another flight", "trip-1", "BA5-2026-12-04", func(_ flights.Flight, taken string) string { return taken }, flights.KeyReused},
		{"an unknown flight", "trip-2", "XX1-2026-12-04", func(_ flights.Flight, _ string) string { return "1A" }, flights.UnknownFlight},
		{"a full flight", "trip-2", "AF9-2026-12-04", func(_ flights.Flight, _ string) string { return "1A" }, flights.Full},
		{"a departed flight", "trip-2", "SK9-2026-12-01", func(_ flights.Flight, _ string) string { return "1A" }, flights.Departed},
		{"no key", "", "SK1-2026-12-04", func(f flights.Flight, _ string) string { return flights.SeatsFor(f)[0] }, flights.Invalid},
	}
	for _, seat := range []string{"31A", "0A", "14G", "31Z", "", "A14", "14", "1AA", "-1A", "1 A"} {
		refusals = append(refusals, refusal{fmt.Sprintf("seat %q is not on the plane", seat), "trip-2", "SK1-2026-12-04",
			func(flights.Flight, string) string { return seat }, flights.NoSuchSeat})
	}
	for _, tc := range refusals {
		t.Run(tc.name, func(t *testing.T) {
			cat, f := fresh(t)
			taken := flights.SeatsFor(f)[1]
			if _, err := cat.Book(ctx, "", "trip-1", f.ID, taken); err != nil {
				t.Fatal(err)
			}
			f, err := cat.Flight(ctx, f.ID)
			if err != nil {
				t.Fatal(err)
			}
			before := snapshot(t, cat)
			seat := tc.seat(f, taken)
			b, err := cat.Book(ctx, "", tc.key, tc.flight, seat)
			wantRefusal(t, err, tc.want)
			if b != (flights.Booking{}) {
				t.Errorf("Book(%q, %q, %q) returned %+v with its refusal", tc.key, tc.flight, seat, b)
			}
			if after := snapshot(t, cat); !after.equal(before) {
				t.Errorf("a refused booking changed the catalogue: %+v, was %+v", after, before)
			}
		})
	}
}

// soldSeat returns a seat on the plane of f that is not free, and not
// booked through the catalogue.
func soldSeat(f flights.Flight) string {
	free := flights.SeatsFor(f)
	for row := 1; row <= flights.Rows; row++ {
		for _, l := range flights.Letters {
			seat := fmt.Sprintf("%d%c", row, l)
			if !slices.Contains(free, seat) && !slices.Contains(f.Booked, seat) {
				return seat
			}
		}
	}
	panic("flightstest: no seat was sold on " + f.ID)
}

func testBookConcurrently(t *testing.T, open Open) {
	ctx := context.Background()
	const n = 16

	t.Run("the last seat: exactly one wins", func(t *testing.T) {
		cat := open(t, Catalogue(), NewClock(Start).Now)
		f, err := cat.Flight(ctx, "SK3-2026-12-04")
		if err != nil {
			t.Fatal(err)
		}
		if f.SeatsLeft != 1 {
			t.Fatalf("the suite's flight %s has %d seats left, want 1", f.ID, f.SeatsLeft)
		}
		seat := flights.SeatsFor(f)[0]
		errs := make([]error, n)
		var wg sync.WaitGroup
		for i := range n {
			wg.Go(func() { _, errs[i] = cat.Book(ctx, "", fmt.Sprintf("trip-%d", i), f.ID, seat) })
		}
		wg.Wait()
		wins := 0
		for _, err := range errs {
			switch code := flights.CodeOf(err); {
			case err == nil:
				wins++
			case code != flights.Full && code != flights.SeatTaken:
				t.Errorf("a losing booking: %v, want Full or SeatTaken", err)
			}
		}
		if wins != 1 {
			t.Errorf("%d bookings of the last seat won, want 1", wins)
		}
		expectSeats(t, cat, f.ID, 0, 1)
	})

	t.Run("the last seats, each wanted by several: one booking each", func(t *testing.T) {
		cat := open(t, Catalogue(), NewClock(Start).Now)
		f, err := cat.Flight(ctx, "UA2-2026-12-04")
		if err != nil {
			t.Fatal(err)
		}
		free := flights.SeatsFor(f)
		bookings := make([]flights.Booking, n)
		errs := make([]error, n)
		var wg sync.WaitGroup
		for i := range n {
			wg.Go(func() { bookings[i], errs[i] = cat.Book(ctx, "", fmt.Sprintf("trip-%d", i), f.ID, free[i%len(free)]) })
		}
		wg.Wait()
		var won []string
		for i, err := range errs {
			switch code := flights.CodeOf(err); {
			case err == nil:
				won = append(won, bookings[i].Seat)
			case code != flights.Full && code != flights.SeatTaken:
				t.Errorf("a losing booking: %v, want Full or SeatTaken", err)
			}
		}
		flights.SortSeats(won)
		if !slices.Equal(won, free) {
			t.Errorf("seats won %v, want each of %v once", won, free)
		}
		expectSeats(t, cat, f.ID, 0, len(free))
	})

	t.Run("one key at once: one booking", func(t *testing.T) {
		cat := open(t, Catalogue(), NewClock(Start).Now)
		f, err := cat.Flight(ctx, "SK1-2026-12-04")
		if err != nil {
			t.Fatal(err)
		}
		seat := flights.SeatsFor(f)[0]
		bookings := make([]flights.Booking, n)
		errs := make([]error, n)
		var wg sync.WaitGroup
		for i := range n {
			wg.Go(func() { bookings[i], errs[i] = cat.Book(ctx, "", "trip-1", f.ID, seat) })
		}
		wg.Wait()
		for i := range n {
			if errs[i] != nil {
				t.Fatalf("booking %d: %v", i, errs[i])
			}
			if !sameBooking(bookings[i], bookings[0]) {
				t.Errorf("booking %d = %+v, booking 0 = %+v; want one booking", i, bookings[i], bookings[0])
			}
		}
		expectSeats(t, cat, f.ID, f.SeatsLeft-1, 1)
	})
}

// expectSeats checks the seats left on flight id and the number of
// bookings the catalogue holds.
func expectSeats(t *testing.T, cat flights.Catalogue, id string, left, bookings int) {
	t.Helper()
	ctx := context.Background()
	f, err := cat.Flight(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if f.SeatsLeft != left || len(f.Booked) != bookings {
		t.Errorf("%s: %d seats left, %d booked; want %d, %d", id, f.SeatsLeft, len(f.Booked), left, bookings)
	}
	got, err := cat.Bookings(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != bookings {
		t.Errorf("%d bookings, want %d", len(got), bookings)
	}
}

func testReferences(t *testing.T, open Open) {
	ctx := context.Background()
	// Two keys whose first candidate references are the same: searched
	// for, so the suite needs no hard-coded pair.
	seen := map[string]string{}
	var k1, k2 string
	for i := 0; k2 == ""; i++ {
		k := fmt.Sprintf("key-%d", i)
		ref := flights.Reference(k, 0)
		if other, ok := seen[ref]; ok {
			k1, k2 = other, k
		}
		seen[ref] = k
	}
	cat := open(t, Catalogue(), NewClock(Start).Now)
	f, err := cat.Flight(ctx, "SK1-2026-12-04")
	if err != nil {
		t.Fatal(err)
	}
	free := flights.SeatsFor(f)
	b1, err := cat.Book(ctx, "", k1, f.ID, free[0])
	if err != nil {
		t.Fatal(err)
	}
	b2, err := cat.Book(ctx, "", k2, f.ID, free[1])
	if err != nil {
		t.Fatal(err)
	}
	if b1.Reference != flights.Reference(k1, 0) || b2.Reference != flights.Reference(k2, 1) {
		t.Errorf("references %q and %q for keys whose first candidates collide, want %q and %q",
			b1.Reference, b2.Reference, flights.Reference(k1, 0), flights.Reference(k2, 1))
	}
	again, err := cat.Book(ctx, "", k2, f.ID, free[1])
	if err != nil {
		t.Fatal(err)
	}
	if again.Reference != b2.Reference {
		t.Errorf("booking again with %q gave reference %q, want %q", k2, again.Reference, b2.Reference)
	}
}

func testBookings(t *testing.T, open Open) {
	ctx := context.Background()
	cat := open(t, Catalogue(), NewClock(Start).Now)
	got, err := cat.Bookings(ctx, "")
	if err != nil || len(got) != 0 {
		t.Fatalf("Bookings of a new catalogue = %v, %v; want none", got, err)
	}
	var want []flights.Booking
	for i, id := range []string{"SK1-2026-12-04", "BA5-2026-12-04", "SK1-2026-12-04", "SK7-2026-12-04"} {
		f, err := cat.Flight(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		b, err := cat.Book(ctx, "", fmt.Sprintf("trip-%d", i), id, flights.SeatsFor(f)[0])
		if err != nil {
			t.Fatal(err)
		}
		want = append([]flights.Booking{b}, want...)
	}
	if got, err = cat.Bookings(ctx, ""); err != nil {
		t.Fatal(err)
	}
	if !slices.EqualFunc(got, want, sameBooking) {
		t.Errorf("Bookings = %+v, want newest first: %+v", got, want)
	}
	for i := 1; i < len(got); i++ {
		if !got[i].Created.Before(got[i-1].Created) {
			t.Errorf("booking %d was made at %v, not before booking %d at %v", i, got[i].Created, i-1, got[i-1].Created)
		}
	}
}

// wantRefusal fails t unless err is a catalogue's refusal with code and a
// message to show.
func wantRefusal(t *testing.T, err error, code flights.Code) {
	t.Helper()
	e, ok := errors.AsType[*flights.Error](err)
	switch {
	case !ok:
		t.Errorf("got error %v, want a *flights.Error with code %s", err, code)
	case e.Code != code:
		t.Errorf("got %s (%v), want %s", e.Code, err, code)
	case e.Message == "":
		t.Errorf("refusal %s has no message", code)
	}
}

func ids(fs []flights.Flight) []string {
	var out []string
	for _, f := range fs {
		out = append(out, f.ID)
	}
	return out
}

func sameFlight(a, b flights.Flight) bool {
	a.Departs, a.Arrives = a.Departs.UTC(), a.Arrives.UTC()
	b.Departs, b.Arrives = b.Departs.UTC(), b.Arrives.UTC()
	return a.ID == b.ID && a.Airline == b.Airline && a.Number == b.Number && a.From == b.From && a.FromCode == b.FromCode &&
		a.To == b.To && a.ToCode == b.ToCode && a.Departs.Equal(b.Departs) && a.Arrives.Equal(b.Arrives) &&
		a.Price == b.Price && a.Currency == b.Currency && a.SeatsLeft == b.SeatsLeft && slices.Equal(a.Booked, b.Booked)
}

func sameBooking(a, b flights.Booking) bool {
	return a.Reference == b.Reference && a.FlightID == b.FlightID && a.Seat == b.Seat && a.Key == b.Key && a.Owner == b.Owner && a.Created.Equal(b.Created)
}

// testBookingsAreTheirOwners: each owner is listed its own bookings alone,
// and a key another owner booked with books nothing and says nothing of
// that booking.
func testBookingsAreTheirOwners(t *testing.T, open Open) {
	ctx := context.Background()
	cat := open(t, Catalogue(), NewClock(Start).Now)
	f, err := cat.Flight(ctx, "SK1-2026-12-04")
	if err != nil {
		t.Fatal(err)
	}
	seats := flights.SeatsFor(f)
	mine, err := cat.Book(ctx, "conversation-a", "trip-a", f.ID, seats[0])
	if err != nil {
		t.Fatal(err)
	}
	theirs, err := cat.Book(ctx, "conversation-b", "trip-b", f.ID, seats[1])
	if err != nil {
		t.Fatal(err)
	}
	for owner, want := range map[string][]flights.Booking{"conversation-a": {mine}, "conversation-b": {theirs}, "conversation-c": nil} {
		got, err := cat.Bookings(ctx, owner)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.EqualFunc(got, want, sameBooking) {
			t.Errorf("Bookings(%s) = %+v, want %+v", owner, got, want)
		}
	}
	_, err = cat.Book(ctx, "conversation-c", "trip-a", f.ID, seats[0])
	if fe, ok := errors.AsType[*flights.Error](err); !ok || fe.Code != flights.KeyReused || strings.Contains(fe.Message, mine.Reference) {
		t.Errorf("booking with another owner's key: %v, want KeyReused that names nothing of theirs", err)
	}
	if got, _ := cat.Bookings(ctx, "conversation-c"); len(got) != 0 {
		t.Errorf("the refused booking listed %+v", got)
	}
}
