package app

import (
	"context"
	"database/sql"
	"io/fs"
)

// DB is the command's database as an application sees it (Env.DB): a
// place for tables of its own beside the framework's, which it makes with
// migrations of its own (Migrate), reads with QueryContext and writes with
// Write. It runs on SQLite or on PostgreSQL, as the command's --db says;
// statements are written with $1…$n for parameters, which both engines
// take, and where their SQL differs an application asks Engine.
type DB interface {
	// Engine names the database: "sqlite" or "postgres".
	Engine() string
	// QueryContext and QueryRowContext read, from the pool of readers.
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
	// Write runs fn in a write transaction and commits it, as the
	// framework commits its own writes: on SQLite through the one
	// connection that writes, possibly in one transaction with other
	// writes (and then again alone if one of them failed), on PostgreSQL
	// again when the server chose it as a deadlock's victim. So fn may run
	// more than once, and must neither commit nor roll back tx. Writes
	// given the same key take turns across the nodes of one PostgreSQL
	// database: the key of a write that reads to decide. An empty key
	// takes no turn.
	Write(ctx context.Context, key string, fn func(ctx context.Context, tx *sql.Tx) error) error
	// Migrate applies the migrations named NNN_name.sql at the root of
	// files that the database has not had yet, in the order of their
	// numbers, in one transaction that records each under
	// name (the application's, or one of its parts'). Nodes that start
	// together on one PostgreSQL database take turns, so each migration
	// is applied once. A migration applied keeps its number: a change
	// is a new file with a higher one.
	Migrate(ctx context.Context, name string, files fs.FS) error
}
