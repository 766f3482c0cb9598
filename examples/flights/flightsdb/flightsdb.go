// Package flightsdb is the demo's flight catalogue kept in the
// application's database (a flights.Catalogue), on SQLite or PostgreSQL:
// tables of the demo's own, made by its own migrations when the demo
// starts, beside the framework's. An application that is not the demo
// has none of them.
package flightsdb

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"strings"
	"time"

	"github.com/sweatpants-go/sweatpants/examples/flights"
)

//go:embed migrations/sqlite/*.sql migrations/postgres/*.sql
var migrations embed.FS

// DB is what the catalogue needs of the application's database: app.DB,
// which app.Env hands the demo's Setup.
type DB interface {
	Engine() string
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
	Write(ctx context.Context, key string, fn func(ctx context.Context, tx *sql.Tx) error) error
	Migrate(ctx context.Context, name string, files fs.FS) error
}

// Catalogue is the flight catalogue kept in the database. Bookings are
// written like every other write of the application, through the
// database's write path; searches read from its pool.
type Catalogue struct {
	db  DB
	now func() time.Time
}

var _ flights.Catalogue = (*Catalogue)(nil)

// Open makes the catalogue's tables in db if they are not there yet and
// returns the catalogue, which tells the flights that have not departed
// by now (time.Now when nil).
func Open(ctx context.Context, db DB, now func() time.Time) (*Catalogue, error) {
	if now == nil {
		now = time.Now
	}
	if err := addOwner(ctx, db); err != nil {
		return nil, fmt.Errorf("open the flight catalogue: %w", err)
	}
	files, err := fs.Sub(migrations, "migrations/"+db.Engine())
	if err != nil {
		return nil, fmt.Errorf("open the flight catalogue: %w", err)
	}
	if err := db.Migrate(ctx, "flights", files); err != nil {
		return nil, fmt.Errorf("open the flight catalogue: %w", err)
	}
	return &Catalogue{db: db, now: now}, nil
}

// Seed records flights.Seed(from) as the catalogue if the database has no
// flights yet, and otherwise leaves the catalogue and its bookings as they
// are: the demo calls it each time it starts.
func (c *Catalogue) Seed(ctx context.Context, from time.Time) error {
	var seeded bool
	if err := c.db.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM flights)`).Scan(&seeded); err != nil {
		return fmt.Errorf("seed flights: %w", err)
	}
	if seeded {
		return nil
	}
	if err := c.add(ctx, flights.Seed(from)); err != nil {
		return fmt.Errorf("seed flights: %w", err)
	}
	return nil
}

// add records fs as the catalogue, in one transaction, unless the
// database has flights already (another process seeded it meanwhile:
// nodes starting together take turns, and seed once).
func (c *Catalogue) add(ctx context.Context, fs []flights.Flight) error {
	return c.db.Write(ctx, "flights", func(ctx context.Context, tx *sql.Tx) error {
		var seeded bool
		if err := tx.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM flights)`).Scan(&seeded); err != nil || seeded {
			return err
		}
		insert, err := tx.PrepareContext(ctx, `INSERT INTO flights(id, airline, number, from_city, from_code,
			to_city, to_code, departs, arrives, price, currency, seats_left) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`)
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
func (c *Catalogue) Search(ctx context.Context, q flights.Query) ([]flights.Flight, error) {
	q, err := q.Normalize()
	if err != nil {
		return nil, err
	}
	after, before := c.now().Unix(), int64(math.MaxInt64)
	if !q.Date.IsZero() {
		// A flight departing at the first second of the day is after the
		// second before it.
		after, before = max(after, q.Date.Unix()-1), q.Date.AddDate(0, 0, 1).Unix()
	}
	rows, err := c.db.QueryContext(ctx, `SELECT `+flightCols+` FROM flights
		WHERE departs > $1 AND departs < $2 AND seats_left >= $3
		  AND (to_code = $4 OR lower(to_city) = lower($5))
		  AND ($6 = '' OR from_code = $7 OR lower(from_city) = lower($6))
		ORDER BY departs, price, id LIMIT $8`,
		after, before, q.Passengers, strings.ToUpper(q.To), q.To,
		q.From, strings.ToUpper(q.From), flights.MaxResults)
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
func (c *Catalogue) Flight(ctx context.Context, id string) (flights.Flight, error) {
	f, err := flightByID(ctx, c.db, id)
	if err != nil {
		return flights.Flight{}, fmt.Errorf("read flight: %w", err)
	}
	if f == nil {
		return flights.Flight{}, flights.NoFlight(id)
	}
	return *f, nil
}

// rowQuerier is a write transaction or the database's read pool.
type rowQuerier interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// flightByID returns the flight with id, nil if there is none.
func flightByID(ctx context.Context, q rowQuerier, id string) (*flights.Flight, error) {
	f, err := scanFlight(q.QueryRowContext(ctx, `SELECT `+flightCols+` FROM flights WHERE id = $1`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return &f, nil
}
