package store

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // registers the "pgx" driver
)

// pgConns is the most connections a node opens to PostgreSQL: enough for
// its writes to overlap (the server commits them in groups itself) and
// its reads, few enough that several nodes stay far under the server's
// max_connections (100 by default).
const pgConns = 16

// openPostgres opens the PostgreSQL database at url and migrates it.
// Options.Durability does not apply: what a commit survives is the
// server's setting (synchronous_commit), not the client's.
func openPostgres(ctx context.Context, url string, opts Options) (*DB, error) {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	conns, err := sql.Open("pgx", url)
	if err != nil {
		return nil, fmt.Errorf("open database: %w", err)
	}
	conns.SetMaxOpenConns(pgConns)
	conns.SetMaxIdleConns(pgConns)
	conns.SetConnMaxIdleTime(5 * time.Minute)
	if err := conns.PingContext(ctx); err != nil {
		conns.Close()
		return nil, fmt.Errorf("open database: %w", err)
	}
	b := &binder{eng: enginePostgres}
	db := &DB{eng: enginePostgres, write: pool{conns, b}, read: pool{conns, b}, now: opts.Now, committed: opts.Committed}
	return db.ready(ctx)
}
