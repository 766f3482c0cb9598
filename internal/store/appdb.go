package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
)

// AppDB is the database as an application sees it (app.DB): tables of its
// own beside the framework's, made by its own migrations, read from the
// pool and written through the write path the framework's writes take.
// It hands out the database/sql types alone, so that an application
// depends on no type of the store's. Statements are written with $1…$n
// for parameters, which both engines take.
type AppDB struct{ db *DB }

// App returns the database's handle for the application's own tables.
func (db *DB) App() AppDB { return AppDB{db: db} }

// Engine names the database: "sqlite" or "postgres".
func (a AppDB) Engine() string { return a.db.eng.String() }

// QueryContext runs a query on the read pool. An error of a database that
// cannot be reached is coded as the store's own reads' are.
func (a AppDB) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	rows, err := a.db.read.DB.QueryContext(ctx, query, args...)
	return rows, classify(err)
}

// QueryRowContext runs a query that returns at most one row on the read
// pool.
func (a AppDB) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	return a.db.read.DB.QueryRowContext(ctx, query, args...)
}

// Write runs fn in a write transaction and commits it, as the store
// commits its own writes: on SQLite through its one write connection,
// possibly in one transaction with other writes, on PostgreSQL again when
// the server chose it as a deadlock's victim. So fn may run more than
// once, and must neither commit nor roll back tx. Writes given the same
// key take turns across the nodes of one PostgreSQL database, each
// waiting for the other's transaction to end (on SQLite, writes are one
// at a time anyway): the key of a write that reads to decide. An empty
// key takes no turn.
func (a AppDB) Write(ctx context.Context, key string, fn func(ctx context.Context, tx *sql.Tx) error) error {
	return a.db.tx(ctx, func(ctx context.Context, tx *txn) error {
		if key != "" {
			// Its own namespace: an application's key never waits on
			// the framework's ("migrate", say).
			if err := tx.serialize(ctx, "app:"+key); err != nil {
				return err
			}
		}
		return fn(ctx, tx.Tx)
	})
}

// Migrate applies the application's migrations that the database has not
// had yet: the files NNN_name.sql at the root of files, in the order of
// their numbers, in one transaction that records each under
// name in app_migrations, so that it is applied once, by one node of
// several starting together. Migrations once applied keep their numbers;
// a new one takes a higher number.
func (a AppDB) Migrate(ctx context.Context, name string, files fs.FS) error {
	if name == "" {
		return errors.New("migrate: an application's migrations need a name")
	}
	create := `CREATE TABLE IF NOT EXISTS app_migrations (
		app TEXT NOT NULL, version INTEGER NOT NULL, name TEXT NOT NULL, applied_at INTEGER NOT NULL,
		PRIMARY KEY (app, version)) STRICT`
	if a.db.eng == enginePostgres {
		create = `CREATE TABLE IF NOT EXISTS app_migrations (
		app text NOT NULL, version integer NOT NULL, name text NOT NULL, applied_at bigint NOT NULL,
		PRIMARY KEY (app, version))`
	}
	err := a.db.apply(ctx, files, migrationLog{
		create:  create,
		current: `SELECT COALESCE(MAX(version), 0) FROM app_migrations WHERE app = ?`,
		record:  `INSERT INTO app_migrations(app, version, name, applied_at) VALUES (?, ?, ?, ?)`,
		args:    []any{name},
	})
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	return nil
}
