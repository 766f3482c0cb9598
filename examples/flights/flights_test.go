package flights_test

import (
	"bytes"
	"context"
	"encoding/json"
	"slices"
	"testing"
	"time"

	"github.com/sweatpants-go/sweatpants/examples/flights"
	"github.com/sweatpants-go/sweatpants/examples/flights/flightstest"
	"github.com/sweatpants-go/sweatpants/internal/apperr"
)

func TestMemory(t *testing.T) {
	flightstest.Run(t, func(t *testing.T, fs []flights.Flight, now func() time.Time) flights.Catalogue {
		m, err := flights.NewMemory(fs, now)
		if err != nil {
			t.Fatal(err)
		}
		return m
	})
}

func TestNewMemoryRefusesWhatIsNoFlight(t *testing.T) {
	good := flightstest.Catalogue()[0]
	for _, tc := range []struct {
		name string
		fs   []flights.Flight
	}{
		{"one ID twice", []flights.Flight{good, good}},
		{"no ID", []flights.Flight{with(good, func(f *flights.Flight) { f.ID = "" })}},
		{"no destination", []flights.Flight{with(good, func(f *flights.Flight) { f.ToCode = "" })}},
		{"arrives before it departs", []flights.Flight{with(good, func(f *flights.Flight) { f.Arrives = f.Departs.Add(-time.Minute) })}},
		{"more seats left than the plane has", []flights.Flight{with(good, func(f *flights.Flight) { f.SeatsLeft = flights.Capacity + 1 })}},
		{"negative seats left", []flights.Flight{with(good, func(f *flights.Flight) { f.SeatsLeft = -1 })}},
		{"no currency", []flights.Flight{with(good, func(f *flights.Flight) { f.Currency = "" })}},
		{"bookings already", []flights.Flight{with(good, func(f *flights.Flight) { f.Booked = []string{"1A"} })}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := flights.NewMemory(tc.fs, nil); err == nil {
				t.Errorf("NewMemory accepted %+v", tc.fs)
			}
		})
	}
}

func with(f flights.Flight, change func(*flights.Flight)) flights.Flight {
	change(&f)
	return f
}

func TestNormalizeSeat(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"1A", "1A"}, {"14a", "14A"}, {" 30F\t", "30F"}, {"07C", "7C"},
	} {
		if got, err := flights.NormalizeSeat(tc.in); err != nil || got != tc.want {
			t.Errorf("NormalizeSeat(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
	for _, in := range []string{"", "A", "1", "0A", "31A", "1G", "1Z", "A1", "1AA", "+1A", "1 A", "١A"} {
		_, err := flights.NormalizeSeat(in)
		if flights.CodeOf(err) != flights.NoSuchSeat {
			t.Errorf("NormalizeSeat(%q): %v, want NoSuchSeat", in, err)
		}
	}
}

func TestSeatsFor(t *testing.T) {
	f := flightstest.Catalogue()[0]
	free := flights.SeatsFor(f)
	if len(free) != f.SeatsLeft {
		t.Fatalf("SeatsFor gave %d seats for a flight with %d left", len(free), f.SeatsLeft)
	}
	sorted := slices.Clone(free)
	flights.SortSeats(sorted)
	if !slices.Equal(sorted, free) {
		t.Errorf("free seats %v are not front to back", free)
	}
	for _, s := range free {
		if n, err := flights.NormalizeSeat(s); err != nil || n != s {
			t.Errorf("free seat %q is not a seat on the plane", s)
		}
	}
	if again := flights.SeatsFor(f); !slices.Equal(again, free) {
		t.Errorf("SeatsFor changed: %v, then %v", free, again)
	}
	// A booked seat is no longer free, and the others stay as they were.
	booked := f
	booked.SeatsLeft--
	booked.Booked = []string{free[2]}
	want := slices.Delete(slices.Clone(free), 2, 3)
	if got := flights.SeatsFor(booked); !slices.Equal(got, want) {
		t.Errorf("after booking %s: free %v, want %v", free[2], got, want)
	}
	other := f
	other.ID = "SK1-2026-12-05"
	if slices.Equal(flights.SeatsFor(other), free) {
		t.Errorf("two flights have the same free seats %v", free)
	}
}

func TestSortSeats(t *testing.T) {
	got := []string{"10A", "2F", "2A", "1C", "30B"}
	flights.SortSeats(got)
	if want := []string{"1C", "2A", "2F", "10A", "30B"}; !slices.Equal(got, want) {
		t.Errorf("SortSeats = %v, want %v", got, want)
	}
}

func TestReference(t *testing.T) {
	if a, b := flights.Reference("conv-1/call-3", 0), flights.Reference("conv-1/call-3", 0); a != b {
		t.Errorf("the same key gave references %q and %q", a, b)
	}
	if a, b := flights.Reference("conv-1/call-3", 0), flights.Reference("conv-1/call-4", 0); a == b {
		t.Errorf("two keys gave reference %q", a)
	}
	if a, b := flights.Reference("conv-1/call-3", 0), flights.Reference("conv-1/call-3", 1); a == b {
		t.Errorf("two candidates of one key are both %q", a)
	}
}

func TestFare(t *testing.T) {
	for _, tc := range []struct {
		price    int
		currency string
		want     string
	}{
		{12900, "EUR", "€129"}, {12950, "EUR", "€129.50"}, {5, "USD", "$0.05"}, {100000, "NOK", "NOK 1000"},
	} {
		if got := (flights.Flight{Price: tc.price, Currency: tc.currency}).Fare(); got != tc.want {
			t.Errorf("Fare of %d %s = %q, want %q", tc.price, tc.currency, got, tc.want)
		}
	}
}

func TestErrorIsTheAppsCodedError(t *testing.T) {
	for code, want := range map[flights.Code]apperr.Code{
		flights.Invalid: apperr.Invalid, flights.NoSuchSeat: apperr.Invalid, flights.UnknownFlight: apperr.NotFound,
		flights.Full: apperr.Conflict, flights.SeatTaken: apperr.Conflict, flights.Departed: apperr.Conflict,
		flights.KeyReused: apperr.Conflict,
	} {
		err := error(flights.Errorf(code, "Flight %s is %s.", "SK1", code))
		if got := apperr.CodeOf(err); got != want {
			t.Errorf("apperr.CodeOf(%s) = %s, want %s", code, got, want)
		}
		if got := apperr.MessageOf(err); got != err.Error() {
			t.Errorf("apperr.MessageOf(%s) = %q, want the refusal's own %q", code, got, err.Error())
		}
	}
}

// seedDay is a Monday; Seed is given a time in its afternoon.
var seedDay = time.Date(2026, 11, 23, 0, 0, 0, 0, time.UTC)

func TestSeedIsTheSameForTheSameDay(t *testing.T) {
	a, err := json.Marshal(flights.Seed(seedDay.Add(15*time.Hour + 4*time.Minute)))
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(flights.Seed(seedDay.In(time.FixedZone("JST", 9*3600)).Add(23 * time.Hour)))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a, b) {
		t.Error("Seed gave two catalogues for one day")
	}
	c, err := json.Marshal(flights.Seed(seedDay.AddDate(0, 0, 1)))
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Equal(a, c) {
		t.Error("Seed gave the same catalogue for two days")
	}
}

func TestSeedIsACatalogue(t *testing.T) {
	fs := flights.Seed(seedDay.Add(15 * time.Hour))
	if _, err := flights.NewMemory(fs, nil); err != nil {
		t.Fatalf("a seeded flight is not one: %v", err)
	}
	cities := map[string]bool{}
	perDay := map[string]int{} // route and day
	full, few := 0, 0
	last := seedDay.AddDate(0, 0, flights.SeedDays)
	for i, f := range fs {
		if f.Departs.Before(seedDay) || !f.Departs.Before(last) {
			t.Errorf("%s departs %v, outside the %d days from %v", f.ID, f.Departs, flights.SeedDays, seedDay)
		}
		if want := f.Number + "-" + f.Departs.Format(time.DateOnly); f.ID != want {
			t.Errorf("flight ID %q, want %q", f.ID, want)
		}
		if d := f.Arrives.Sub(f.Departs); d < 45*time.Minute || d > 15*time.Hour {
			t.Errorf("%s %s→%s takes %v", f.ID, f.From, f.To, d)
		}
		if f.From == f.To || len(f.FromCode) != 3 || len(f.ToCode) != 3 {
			t.Errorf("%s flies %s (%s) → %s (%s)", f.ID, f.From, f.FromCode, f.To, f.ToCode)
		}
		if f.Price < 2900 || f.Price > 200000 || f.Currency != "EUR" {
			t.Errorf("%s costs %s", f.ID, f.Fare())
		}
		if i%7 == 0 { // every seventh: SeatsFor hashes each seat
			if free := flights.SeatsFor(f); len(free) != f.SeatsLeft {
				t.Errorf("%s: %d seats left, %d free seats", f.ID, f.SeatsLeft, len(free))
			}
		}
		cities[f.From], cities[f.To] = true, true
		perDay[f.FromCode+f.ToCode+f.Departs.Format(time.DateOnly)]++
		switch {
		case f.SeatsLeft == 0:
			full++
		case f.SeatsLeft < 10:
			few++
		}
	}
	if len(cities) != 12 {
		t.Errorf("the catalogue flies between %d cities, want 12: %v", len(cities), cities)
	}
	for route, n := range perDay {
		if n < 2 || n > 4 {
			t.Errorf("%d flights on %s", n, route)
		}
	}
	if full == 0 || few == 0 || full+few > len(fs)/2 {
		t.Errorf("%d of %d flights are full and %d have fewer than ten seats left: want a few of each", full, len(fs), few)
	}
}

// The story of issue 17 books from Oslo, London and Paris to Tokyo and
// Osaka on whatever day the user names.
func TestSeedHasFlightsForTheStoryEveryDay(t *testing.T) {
	cat, err := flights.NewMemory(flights.Seed(seedDay.Add(15*time.Hour)), func() time.Time { return seedDay })
	if err != nil {
		t.Fatal(err)
	}
	for _, from := range []string{"Oslo", "London", "Paris"} {
		for _, to := range []string{"Tokyo", "Osaka"} {
			for day := range flights.SeedDays {
				date := seedDay.AddDate(0, 0, day)
				got, err := cat.Search(context.Background(), flights.Query{From: from, To: to, Date: date})
				if err != nil {
					t.Fatal(err)
				}
				if len(got) < 2 {
					t.Errorf("%s → %s on %s: %d flights, want several", from, to, date.Format("Mon 2 Jan"), len(got))
				}
			}
		}
	}
}
