package flightsdb

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/sweatpants-go/sweatpants/examples/flights"
	"github.com/sweatpants-go/sweatpants/examples/flights/flightstest"
)

// A database an earlier build made has the catalogue's tables from that
// build's framework migrations (004, and 015 for the bookings' owners,
// kept in testdata/earlier as they were): the demo takes them as made,
// with their flights and bookings, and books on them, whether or not its
// bookings had owners yet.
func TestAnEarlierBuildsCatalogueIsKept(t *testing.T) {
	for _, tc := range []struct {
		name       string
		migrations []string
		owner      string // the owner the earlier build recorded
	}{
		{"with owners", []string{"004_flights.sql", "015_booking_owner.sql"}, "conversation-1"},
		{"from before owners", []string{"004_flights.sql"}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			contract(t, func(t *testing.T, target string) {
				ctx := context.Background()
				db := openDB(t, target).App()
				f := flightstest.Catalogue()[0]
				err := db.Write(ctx, "", func(ctx context.Context, tx *sql.Tx) error {
					for _, name := range tc.migrations {
						body, err := os.ReadFile(filepath.Join("testdata", "earlier", db.Engine(), name))
						if err != nil {
							return err
						}
						if _, err := tx.ExecContext(ctx, string(body)); err != nil {
							return err
						}
					}
					if _, err := tx.ExecContext(ctx, `INSERT INTO flights(id, airline, number, from_city, from_code,
						to_city, to_code, departs, arrives, price, currency, seats_left) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`,
						f.ID, f.Airline, f.Number, f.From, f.FromCode, f.To, f.ToCode, f.Departs.Unix(), f.Arrives.Unix(), f.Price, f.Currency, f.SeatsLeft-1); err != nil {
						return err
					}
					insert := `INSERT INTO bookings(key, reference, flight_id, seat, created_at) VALUES ('key-1', 'ABC123', $1, '1A', 0)`
					args := []any{f.ID}
					if tc.owner != "" {
						insert = `INSERT INTO bookings(key, reference, flight_id, seat, created_at, owner) VALUES ('key-1', 'ABC123', $1, '1A', 0, $2)`
						args = append(args, tc.owner)
					}
					_, err := tx.ExecContext(ctx, insert, args...)
					return err
				})
				if err != nil {
					t.Fatal(err)
				}

				cat, err := Open(ctx, db, flightstest.NewClock(flightstest.Start).Now)
				if err != nil {
					t.Fatal(err)
				}
				if err := cat.Seed(ctx, time.Now()); err != nil {
					t.Fatal(err)
				}
				if n := countFlights(t, db); n != 1 {
					t.Errorf("%d flights, want the earlier build's one: a catalogue is seeded once", n)
				}
				got, err := cat.Bookings(ctx, tc.owner)
				if err != nil || len(got) != 1 || got[0].Reference != "ABC123" {
					t.Errorf("bookings of %q: %+v, %v; want the earlier build's ABC123", tc.owner, got, err)
				}
				seat := flights.SeatsFor(f)[1]
				b, err := cat.Book(ctx, "conversation-2", "key-2", f.ID, seat)
				if err != nil {
					t.Fatal(err)
				}
				after, err := cat.Flight(ctx, f.ID)
				if err != nil || after.SeatsLeft != f.SeatsLeft-2 || len(after.Booked) != 2 {
					t.Errorf("after booking %s: %+v, %v; want %d seats left, two booked", b.Seat, after, err, f.SeatsLeft-2)
				}
				if mine, err := cat.Bookings(ctx, "conversation-2"); err != nil || len(mine) != 1 || mine[0].Reference != b.Reference {
					t.Errorf("bookings of conversation-2: %+v, %v; want [%s]", mine, err, b.Reference)
				}
			})
		})
	}
}
