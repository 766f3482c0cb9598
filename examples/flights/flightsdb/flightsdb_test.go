package flightsdb

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/sweatpants-go/sweatpants/examples/flights"
	"github.com/sweatpants-go/sweatpants/examples/flights/flightstest"
	"github.com/sweatpants-go/sweatpants/internal/store"
	"github.com/sweatpants-go/sweatpants/internal/store/pgtest"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// contract runs test on a SQLite file of its own and on a PostgreSQL
// schema of its own: the catalogue behaves the same on both.
func contract(t *testing.T, test func(t *testing.T, target string)) {
	t.Run("sqlite", func(t *testing.T) { test(t, filepath.Join(t.TempDir(), "data", "test.db")) })
	t.Run("postgres", func(t *testing.T) { test(t, pgtest.Schema(t)) })
}

// openDB opens the database at target; it is closed when the test ends.
func openDB(tb testing.TB, target string) *store.DB {
	tb.Helper()
	db, err := store.Open(context.Background(), target, store.Options{})
	if err != nil {
		tb.Fatalf("open database: %v", err)
	}
	tb.Cleanup(func() { db.Close() })
	return db
}

func TestFlights(t *testing.T) {
	t.Run("sqlite", func(t *testing.T) {
		flightstest.Run(t, catalogue(func(tb testing.TB) string { return filepath.Join(tb.TempDir(), "test.db") }))
	})
	t.Run("postgres", func(t *testing.T) { flightstest.Run(t, catalogue(pgtest.Schema)) })
}

// catalogue opens a database of its own, from target, for each test of
// the catalogue's suite.
func catalogue(target func(testing.TB) string) flightstest.Open {
	return func(t *testing.T, fs []flights.Flight, now func() time.Time) flights.Catalogue {
		c, err := Open(t.Context(), openDB(t, target(t)).App(), now)
		if err != nil {
			t.Fatal(err)
		}
		if err := c.add(t.Context(), fs); err != nil {
			t.Fatal(err)
		}
		return c
	}
}

// seedFrom is a time in the afternoon of the day the tests seed from.
var seedFrom = time.Date(2026, 11, 23, 15, 4, 0, 0, time.UTC)

// TestSeed seeds a database, books, and opens it again: seeding once
// takes long enough under the race detector to do it only once.
func TestSeed(t *testing.T) { contract(t, testSeed) }

func testSeed(t *testing.T, target string) {
	ctx := context.Background()
	db, err := store.Open(ctx, target, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() }) // closing again does nothing
	cat, err := Open(ctx, db.App(), flightstest.NewClock(seedFrom).Now)
	if err != nil {
		t.Fatal(err)
	}
	if err := cat.Seed(ctx, seedFrom); err != nil {
		t.Fatal(err)
	}
	seed := flights.Seed(seedFrom)
	if n := countFlights(t, db.App()); n != len(seed) {
		t.Errorf("%d flights recorded, want the seed's %d", n, len(seed))
	}
	for i := 0; i < len(seed); i += 997 {
		got, err := cat.Flight(ctx, seed[i].ID)
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
	found, err := cat.Search(ctx, flights.Query{From: "OSL", To: "Tokyo", Date: seedFrom.AddDate(0, 0, 11)})
	if err != nil || len(found) < 2 {
		t.Fatalf("Oslo → Tokyo in 11 days: %d flights, %v; want several", len(found), err)
	}
	f := found[0]
	seat := flights.SeatsFor(f)[0]
	booked, err := cat.Book(ctx, "", "conversation-1/call-7", f.ID, seat)
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}

	// Opened again a month later, as the demo does: Seed again.
	later := seedFrom.AddDate(0, 1, 0)
	db = openDB(t, target)
	cat, err = Open(ctx, db.App(), flightstest.NewClock(seedFrom.Add(time.Hour)).Now)
	if err != nil {
		t.Fatal(err)
	}
	if err := cat.Seed(ctx, later); err != nil {
		t.Fatal(err)
	}
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
	if n := countFlights(t, db.App()); n != len(seed) {
		t.Errorf("%d flights after reopening, want the first seed's %d", n, len(seed))
	}
}

func countFlights(t *testing.T, db DB) int {
	t.Helper()
	var n int
	if err := db.QueryRowContext(context.Background(), `SELECT COUNT(*) FROM flights`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

func sameBooking(a, b flights.Booking) bool {
	return a.Reference == b.Reference && a.FlightID == b.FlightID && a.Seat == b.Seat && a.Key == b.Key && a.Created.Equal(b.Created)
}
