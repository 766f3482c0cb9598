package flightsdb

import (
	"context"
	"database/sql"
)

// addOwner gives the bookings of a database made before bookings had
// owners their owner column. Such a database has the tables from its
// framework's migrations, which the demo's own take as made (CREATE TABLE
// IF NOT EXISTS): the column is added here, before them, since neither
// engine's SQL adds a column only where it is missing in a way both take.
// A database without the tables, or whose bookings have owners, is left
// as it is.
func addOwner(ctx context.Context, db DB) error {
	if lacks, err := lacksOwner(ctx, db.Engine(), db.QueryRowContext); err != nil || !lacks {
		return err
	}
	return db.Write(ctx, "flights", func(ctx context.Context, tx *sql.Tx) error {
		// Another process may have added it meanwhile.
		if lacks, err := lacksOwner(ctx, db.Engine(), tx.QueryRowContext); err != nil || !lacks {
			return err
		}
		_, err := tx.ExecContext(ctx, `ALTER TABLE bookings ADD COLUMN owner TEXT NOT NULL DEFAULT ''`)
		return err
	})
}

// lacksOwner reports whether the database has a bookings table without
// an owner column.
func lacksOwner(ctx context.Context, engine string, query func(ctx context.Context, q string, args ...any) *sql.Row) (bool, error) {
	q := `SELECT COUNT(*), COUNT(*) FILTER (WHERE name = 'owner') FROM pragma_table_info('bookings')`
	if engine == "postgres" {
		q = `SELECT COUNT(*), COUNT(*) FILTER (WHERE column_name = 'owner') FROM information_schema.columns
			WHERE table_schema = current_schema() AND table_name = 'bookings'`
	}
	var cols, owner int
	if err := query(ctx, q).Scan(&cols, &owner); err != nil {
		return false, err
	}
	return cols > 0 && owner == 0, nil
}
