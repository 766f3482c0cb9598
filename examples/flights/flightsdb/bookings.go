package flightsdb

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/sweatpants-go/sweatpants/examples/flights"
)

// Book implements flights.Catalogue, in one write transaction: it finds
// the booking made with key or decides the new one (flights.CheckBooking),
// records it and takes the seat off the flight. A refusal is not the
// transaction's error, so it does not fail the writes committed with it.
func (c *Catalogue) Book(ctx context.Context, owner, key, flightID, seat string) (flights.Booking, error) {
	var b flights.Booking
	var refusal error
	// Whether a seat is free and a key new is read, then decided: nodes
	// booking at once take turns.
	err := c.db.Write(ctx, "bookings", func(ctx context.Context, tx *sql.Tx) error {
		b, refusal = flights.Booking{}, nil // a group that failed runs this again alone
		prior, err := bookingByKey(ctx, tx, key)
		if err != nil {
			return err
		}
		f, err := flightByID(ctx, tx, flightID)
		if err != nil {
			return err
		}
		next, fresh, err := flights.CheckBooking(prior, f, owner, key, flightID, seat, c.now())
		if err != nil || !fresh {
			b, refusal = next, err
			return nil
		}
		for n := 0; ; n++ {
			next.Reference = flights.Reference(key, n)
			var held bool
			if err := tx.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM bookings WHERE reference = $1)`,
				next.Reference).Scan(&held); err != nil {
				return err
			}
			if !held {
				break
			}
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO bookings(key, reference, flight_id, seat, owner, created_at) VALUES ($1, $2, $3, $4, $5, $6)`,
			next.Key, next.Reference, next.FlightID, next.Seat, next.Owner, next.Created.UnixMilli()); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE flights SET seats_left = seats_left - 1 WHERE id = $1`, f.ID); err != nil {
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
	b, err := scanBooking(q.QueryRowContext(ctx, `SELECT `+bookingCols+` FROM bookings WHERE key = $1`, key))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return &b, nil
}

// Bookings implements flights.Catalogue.
func (c *Catalogue) Bookings(ctx context.Context, owner string) ([]flights.Booking, error) {
	rows, err := c.db.QueryContext(ctx, `SELECT `+bookingCols+` FROM bookings WHERE owner = $1 ORDER BY id DESC`, owner)
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
