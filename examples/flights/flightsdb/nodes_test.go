package flightsdb

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/sweatpants-go/sweatpants/examples/flights"
	"github.com/sweatpants-go/sweatpants/examples/flights/flightstest"
)

// Several processes on one database (the nodes of a cluster on
// PostgreSQL; on SQLite, a tool beside the server) agree: they make the
// catalogue's tables once, seed it once and book a seat once.
func TestNodesSharingADatabaseAgree(t *testing.T) { contract(t, testNodesSharingADatabaseAgree) }

func testNodesSharingADatabaseAgree(t *testing.T, target string) {
	ctx := context.Background()
	clock := flightstest.NewClock(flightstest.Start)
	nodes := make([]*Catalogue, 3)
	dbs := make([]DB, len(nodes))
	for i := range dbs {
		dbs[i] = openDB(t, target).App()
	}
	all(t, len(nodes), func(i int) error {
		var err error
		nodes[i], err = Open(ctx, dbs[i], clock.Now)
		return err
	})
	var migrated int
	if err := dbs[0].QueryRowContext(ctx, `SELECT COUNT(*) FROM app_migrations WHERE app = 'flights'`).Scan(&migrated); err != nil || migrated != 1 {
		t.Errorf("the catalogue's migrations recorded %d times, %v; want once", migrated, err)
	}

	all(t, len(nodes), func(i int) error { return nodes[i].add(ctx, flightstest.Catalogue()) })
	if n := countFlights(t, dbs[0]); n != len(flightstest.Catalogue()) {
		t.Fatalf("%d flights; want the catalogue's %d, seeded once", n, len(flightstest.Catalogue()))
	}

	f, err := nodes[0].Flight(ctx, "SK1-2026-12-04")
	if err != nil {
		t.Fatal(err)
	}
	seats := flights.SeatsFor(f)
	same := make([]flights.Booking, len(nodes))
	all(t, len(nodes), func(i int) error {
		var err error
		same[i], err = nodes[i].Book(ctx, "", "one-key", f.ID, seats[0])
		return err
	})
	for i, b := range same[1:] {
		if b != same[0] {
			t.Errorf("node %d booked %+v with the key node 0 booked %+v with: want the one booking", i+1, b, same[0])
		}
	}
	var mu sync.Mutex
	won := 0
	all(t, len(nodes), func(i int) error {
		_, err := nodes[i].Book(ctx, "", fmt.Sprint("key-", i), f.ID, seats[1])
		var refused *flights.Error
		switch {
		case err == nil:
			mu.Lock()
			won++
			mu.Unlock()
			return nil
		case errors.As(err, &refused):
			return nil
		}
		return err
	})
	if won != 1 {
		t.Errorf("%d nodes booked seat %s with keys of their own; want exactly one, the others refused", won, seats[1])
	}
	if bs, err := nodes[2].Bookings(ctx, ""); err != nil || len(bs) != 2 {
		t.Errorf("%d bookings, %v; want 2", len(bs), err)
	}
}

// all runs fn(0) … fn(n-1) at once and fails the test on their errors.
func all(t *testing.T, n int, fn func(i int) error) {
	t.Helper()
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { errs[i] = fn(i) })
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
}
