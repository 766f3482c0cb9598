package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/sweatpants-go/sweatpants/examples/flights"
)

// Flights is the flight catalogue kept in the database, a
// flights.Catalogue. Bookings are written like every other write, through
// the one write connection; searches read from the pool.
type Flights struct{ db *DB }

var _ flights.Catalogue = (*Flights)(nil)

// Flights returns the database's flight catalogue.
func (db *DB) Flights() *Flights { return &Flights{db: db} }

// SeedFlights records flights.Seed(from) as the catalogue if the database
// has no flights yet, and otherwise leaves the catalogue and its bookings
// as they are: the app calls it each time it opens the database.
func (db *DB) SeedFlights(ctx context.Context, from time.Time) error {
	var seeded bool
	if err := db.read.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM flights)`).Scan(&seeded); err != nil {
		return fmt.Errorf("seed flights: %w", err)
	}
	if seeded {
		return nil
	}
	if err := db.addFlights(ctx, flights.Seed(from)); err != nil {
		return fmt.Errorf("seed flights: %w", err)
	}
	return nil
}

// addFlights records fs as the catalogue, in one transaction, unless the
// database has flights already (another process seeded it meanwhile).
func (db *DB) addFlights(ctx context.Context, fs []flights.Flight) error {
	return db.tx(ctx, func(ctx context.Context, tx *txn) error {
		if err := tx.serialize(ctx, "flights"); err != nil { // nodes starting together seed once
			return err
		}
		var seeded bool
		if err := tx.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM flights)`).Scan(&seeded); err != nil || seeded {
			return err
		}
		insert, err := tx.PrepareContext(ctx, `INSERT INTO flights(id, airline, number, from_city, from_code,
			to_city, to_code, departs, arrives, price, currency, seats_left) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`)
		if err != nil {
			return err
		}
		defer insert.Close()
		for _, f := range fs {
			f, err := f.Normalize()
			if err != nil {
				return err
			}
			if _, err := insert.ExecContext(ctx, f.ID, f.Airline, f.Number, f.From, f.FromCode, f.To, f.ToCode,
				f.Departs.Unix(), f.Arrives.Unix(), f.Price, f.Currency, f.SeatsLeft); err != nil {
				return fmt.Errorf("flight %s: %w", f.ID, err)
			}
		}
		return nil
	})
}

// flightCols are the columns scanFlight reads, the seats booked last.
const flightCols = `id, airline, number, from_city, from_code, to_city, to_code, departs, arrives, price, currency,
	seats_left, (SELECT COALESCE(string_agg(seat, ','), '') FROM bookings WHERE flight_id = flights.id)`

func scanFlight(row interface{ Scan(...any) error }) (flights.Flight, error) {
	var f flights.Flight
	var departs, arrives int64
	var booked string
	err := row.Scan(&f.ID, &f.Airline, &f.Number, &f.From, &f.FromCode, &f.To, &f.ToCode, &departs, &arrives,
		&f.Price, &f.Currency, &f.SeatsLeft, &booked)
	f.Departs, f.Arrives = time.Unix(departs, 0).UTC(), time.Unix(arrives, 0).UTC()
	if booked != "" {
		f.Booked = strings.Split(booked, ",")
		flights.SortSeats(f.Booked)
	}
	return f, err
}

// Search implements flights.Catalogue. Places are compared without regard
// to the case of ASCII letters (lower, as both engines have it; SQLite's
// folds only ASCII).
func (c *Flights) Search(ctx context.Context, q flights.Query) ([]flights.Flight, error) {
	q, err := q.Normalize()
	if err != nil {
		return nil, err
	}
	after, before := c.db.now().Unix(), int64(math.MaxInt64)
	if !q.Date.IsZero() {
		// A flight departing at the first second of the day is after the
		// second before it.
		after, before = max(after, q.Date.Unix()-1), q.Date.AddDate(0, 0, 1).Unix()
	}
	rows, err := c.db.read.QueryContext(ctx, `SELECT `+flightCols+` FROM flights
		WHERE departs > ? AND departs < ? AND seats_left >= ?
		  AND (to_code = ? OR lower(to_city) = lower(?))
		  AND (? = '' OR from_code = ? OR lower(from_city) = lower(?))
		ORDER BY departs, price, id LIMIT ?`,
		after, before, q.Passengers, strings.ToUpper(q.To), q.To,
		q.From, strings.ToUpper(q.From), q.From, flights.MaxResults)
	if err != nil {
		return nil, fmt.Errorf("search flights: %w", err)
	}
	defer rows.Close()
	var out []flights.Flight
	for rows.Next() {
		f, err := scanFlight(rows)
		if err != nil {
			return nil, fmt.Errorf("search flights: %w", err)
		}
		out = append(out, f)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("search flights: %w", err)
	}
	return out, nil
}

// Flight implements flights.Catalogue.
func (c *Flights) Flight(ctx context.Context, id string) (flights.Flight, error) {
	f, err := flightByID(ctx, c.db.read, id)
	if err != nil {
		return flights.Flight{}, fmt.Errorf("read flight: %w", err)
	}
	if f == nil {
		return flights.Flight{}, flights.NoFlight(id)
	}
	return *f, nil
}

// rowQuerier is a transaction or the read pool.
type rowQuerier interface {
	QueryRowContext(ctx context.Context, query string, args ...any) row
}

// flightByID returns the flight with id, nil if there is none.
func flightByID(ctx context.Context, q rowQuerier, id string) (*flights.Flight, error) {
	f, err := scanFlight(q.QueryRowContext(ctx, `SELECT `+flightCols+` FROM flights WHERE id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return &f, nil
}

// Book implements flights.Catalogue, in one write transaction: it finds
// the booking made with key or decides the new one (flights.CheckBooking),
// records it and takes the seat off the flight. A refusal is not the
// transaction's error, so it does not fail the writes committed with it.
func (c *Flights) Book(ctx context.Context, owner, key, flightID, seat string) (flights.Booking, error) {
	var b flights.Booking
	var refusal error
	err := c.db.tx(ctx, func(ctx context.Context, tx *txn) error {
		b, refusal = flights.Booking{}, nil // a group that failed runs this again alone
		// Whether a seat is free and a key new is read, then decided:
		// nodes booking at once take turns.
		if err := tx.serialize(ctx, "bookings"); err != nil {
			return err
		}
		prior, err := bookingByKey(ctx, tx, key)
		if err != nil {
			return err
		}
		f, err := flightByID(ctx, tx, flightID)
		if err != nil {
			return err
		}
		next, fresh, err := flights.CheckBooking(prior, f, owner, key, flightID, seat, c.db.now())
		if err != nil || !fresh {
			b, refusal = next, err
			return nil
		}
		for n := 0; ; n++ {
			next.Reference = flights.Reference(key, n)
			var held bool
			if err := tx.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM bookings WHERE reference = ?)`,
				next.Reference).Scan(&held); err != nil {
				return err
			}
			if !held {
				break
			}
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO bookings(key, reference, flight_id, seat, owner, created_at) VALUES (?, ?, ?, ?, ?, ?)`,
			next.Key, next.Reference, next.FlightID, next.Seat, next.Owner, next.Created.UnixMilli()); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE flights SET seats_left = seats_left - 1 WHERE id = ?`, f.ID); err != nil {
			return err
		}
		b = next
		return nil
	})
	if err != nil {
		return flights.Booking{}, fmt.Errorf("book seat %q on %q: %w", seat, flightID, err)
	}
	return b, refusal
}

const bookingCols = `reference, flight_id, seat, key, owner, created_at`

func scanBooking(row interface{ Scan(...any) error }) (flights.Booking, error) {
	var b flights.Booking
	var created int64
	err := row.Scan(&b.Reference, &b.FlightID, &b.Seat, &b.Key, &b.Owner, &created)
	b.Created = time.UnixMilli(created).UTC()
	return b, err
}

// bookingByKey returns the booking made with key, nil if there is none.
func bookingByKey(ctx context.Context, q rowQuerier, key string) (*flights.Booking, error) {
	b, err := scanBooking(q.QueryRowContext(ctx, `SELECT `+bookingCols+` FROM bookings WHERE key = ?`, key))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return &b, nil
}

// Bookings implements flights.Catalogue.
func (c *Flights) Bookings(ctx context.Context, owner string) ([]flights.Booking, error) {
	rows, err := c.db.read.QueryContext(ctx, `SELECT `+bookingCols+` FROM bookings WHERE owner = ? ORDER BY id DESC`, owner)
	if err != nil {
		return nil, fmt.Errorf("list bookings: %w", err)
	}
	defer rows.Close()
	var out []flights.Booking
	for rows.Next() {
		b, err := scanBooking(rows)
		if err != nil {
			return nil, fmt.Errorf("list bookings: %w", err)
		}
		out = append(out, b)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list bookings: %w", err)
	}
	return out, nil
}
