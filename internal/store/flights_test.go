package store

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/sweatpants-go/sweatpants/examples/flights"
	"github.com/sweatpants-go/sweatpants/examples/flights/flightstest"
	"github.com/sweatpants-go/sweatpants/internal/store/pgtest"
)

func TestFlights(t *testing.T) {
	t.Run("sqlite", func(t *testing.T) {
		flightstest.Run(t, catalogue(func(tb testing.TB) string { return filepath.Join(tb.TempDir(), "test.db") }))
	})
	t.Run("postgres", func(t *testing.T) { flightstest.Run(t, catalogue(pgtest.Schema)) })
}

// catalogue opens a database of its own, from target, for each test of
// the catalogue's suite.
func catalogue(target func(testing.TB) string) func(*testing.T, []flights.Flight, func() time.Time) flights.Catalogue {
	return func(t *testing.T, fs []flights.Flight, now func() time.Time) flights.Catalogue {
		db := openTarget(t, target(t), Options{Now: now})
		if err := db.addFlights(context.Background(), fs); err != nil {
			t.Fatal(err)
		}
		return db.Flights()
	}
}

// seedFrom is a time in the afternoon of the day the tests seed from.
var seedFrom = time.Date(2026, 11, 23, 15, 4, 0, 0, time.UTC)

// TestSeedFlights seeds a database, books, and opens it again: seeding
// once takes long enough under the race detector to do it only once.
func TestSeedFlights(t *testing.T) { contract(t, testSeedFlights) }

func testSeedFlights(t *testing.T, target string) {
	ctx := context.Background()
	path := target
	db, err := Open(ctx, path, Options{Now: flightstest.NewClock(seedFrom).Now})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() }) // closing again does nothing
	if err := db.SeedFlights(ctx, seedFrom); err != nil {
		t.Fatal(err)
	}
	seed := flights.Seed(seedFrom)
	if n := countFlights(t, db); n != len(seed) {
		t.Errorf("%d flights recorded, want the seed's %d", n, len(seed))
	}
	for i := 0; i < len(seed); i += 997 {
		got, err := db.Flights().Flight(ctx, seed[i].ID)
		if err != nil {
			t.Fatal(err)
		}
		if want := seed[i]; got.ID != want.ID || got.Airline != want.Airline || got.Number != want.Number ||
			got.From != want.From || got.FromCode != want.FromCode || got.To != want.To || got.ToCode != want.ToCode ||
			!got.Departs.Equal(want.Departs) || !got.Arrives.Equal(want.Arrives) || got.Price != want.Price ||
			got.Currency != want.Currency || got.SeatsLeft != want.SeatsLeft || got.Booked != nil {
			t.Errorf("recorded %+v, seeded %+v", got, want)
		}
	}

	// The story's booking, as the Flight agent will make it.
	found, err := db.Flights().Search(ctx, flights.Query{From: "OSL", To: "Tokyo", Date: seedFrom.AddDate(0, 0, 11)})
	if err != nil || len(found) < 2 {
		t.Fatalf("Oslo → Tokyo in 11 days: %d flights, %v; want several", len(found), err)
	}
	f := found[0]
	seat := flights.SeatsFor(f)[0]
	booked, err := db.Flights().Book(ctx, "", "conversation-1/call-7", f.ID, seat)
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}

	// Opened again a month later, as the app does: SeedFlights again.
	later := seedFrom.AddDate(0, 1, 0)
	db, err = Open(ctx, path, Options{Now: flightstest.NewClock(seedFrom.Add(time.Hour)).Now})
	if err != nil {
		t.Fatal(err)
	}
	if err := db.SeedFlights(ctx, later); err != nil {
		t.Fatal(err)
	}
	cat := db.Flights()
	got, err := cat.Bookings(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || !sameBooking(got[0], booked) {
		t.Errorf("Bookings after reopening = %+v, want [%+v]", got, booked)
	}
	after, err := cat.Flight(ctx, f.ID)
	if err != nil {
		t.Fatal(err)
	}
	if after.SeatsLeft != f.SeatsLeft-1 || len(after.Booked) != 1 || after.Booked[0] != seat {
		t.Errorf("%s after reopening: %d seats left, booked %v; want %d, [%s]", f.ID, after.SeatsLeft, after.Booked, f.SeatsLeft-1, seat)
	}
	again, err := cat.Book(ctx, "", "conversation-1/call-7", f.ID, seat)
	if err != nil || !sameBooking(again, booked) {
		t.Errorf("booking again after reopening = %+v, %v; want %+v", again, err, booked)
	}
	// A flight only the later seed has is not in the catalogue.
	newer := flights.Seed(later)
	_, err = cat.Flight(ctx, newer[len(newer)-1].ID)
	if flights.CodeOf(err) != flights.UnknownFlight {
		t.Errorf("Flight(%s), of a second seed: %v, want UnknownFlight", newer[len(newer)-1].ID, err)
	}
	if n := countFlights(t, db); n != len(seed) {
		t.Errorf("%d flights after reopening, want the first seed's %d", n, len(seed))
	}
}

func countFlights(t *testing.T, db *DB) int {
	t.Helper()
	var n int
	if err := db.read.QueryRowContext(context.Background(), `SELECT COUNT(*) FROM flights`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

func sameBooking(a, b flights.Booking) bool {
	return a.Reference == b.Reference && a.FlightID == b.FlightID && a.Seat == b.Seat && a.Key == b.Key && a.Created.Equal(b.Created)
}
