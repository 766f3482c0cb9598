// Package store keeps sessions, conversations and their nodes in SQLite
// (modernc.org/sqlite, no cgo), or in PostgreSQL (jackc/pgx) where several
// nodes share one database. Schema migrations are embedded in the binary,
// one set per engine, and applied in order on Open.
package store

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"time"

	"modernc.org/sqlite" // also registers the "sqlite" driver
	sqlite3 "modernc.org/sqlite/lib"
)

//go:embed migrations/sqlite/*.sql migrations/postgres/*.sql
var migrations embed.FS

// Durability says what a committed write survives.
type Durability string

const (
	// CrashSafe writes survive a crash of the process (WAL, synchronous=NORMAL),
	// and a power loss about a second later, once the checkpointer synced
	// the log.
	CrashSafe Durability = "process-crash"
	// PowerSafe writes survive a power loss too (WAL, synchronous=FULL).
	PowerSafe Durability = "power-loss"
)

// Options configure Open.
type Options struct {
	Durability Durability
	Now        func() time.Time
	// Committed, when set, hears how long each write took to commit, as
	// its caller waited: queued behind other writes, then committed (for
	// a commit-latency histogram).
	Committed func(time.Duration)

	quietAfter time.Duration // tests: how long without commits before the log is truncated
}

// DB is the application's database. On SQLite: one connection that writes,
// a pool that reads, and a connection that checkpoints the write-ahead log
// in the background. On PostgreSQL: one pool for both, the server doing
// the rest.
type DB struct {
	eng    engine
	write  pool
	read   pool
	stmts  stmts
	writes writeQueue
	recent recency
	live   *liveSessions // nil on PostgreSQL
	ckpt   *checkpointer
	now    func() time.Time
	path   string
	health health

	committed func(time.Duration) // see Options.Committed
}

// Open opens the database at target and migrates it: a PostgreSQL
// database when target is a connection string (IsPostgres), else the
// SQLite file at that path, created if needed. A target that looks like a
// connection string of another kind is refused (CheckTarget).
func Open(ctx context.Context, target string, opts Options) (*DB, error) {
	if err := CheckTarget(target); err != nil {
		return nil, err
	}
	if IsPostgres(target) {
		return openPostgres(ctx, target, opts)
	}
	path := target
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Durability == "" {
		opts.Durability = CrashSafe
	}
	if opts.quietAfter == 0 {
		opts.quietAfter = quietAfter
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, fmt.Errorf("create database directory: %w", err)
	}
	// The file is made here, once, and every connection opens it with
	// mode=rw, which never creates one: a connection a pool opens later,
	// after someone deleted the file, fails instead of starting an empty
	// database beside the one the writer still holds (readers would see
	// nothing of what was written, and a second process could take the
	// new file for its own).
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("create database: %w", err)
	}
	f.Close()
	sync := "NORMAL"
	if opts.Durability == PowerSafe {
		sync = "FULL"
	}
	// Every connection syncs as the durability asks, checkpoints included:
	// a checkpoint's fsyncs are what make the copied pages safe.
	common := []string{"journal_mode(WAL)", "foreign_keys(1)", "synchronous(" + sync + ")",
		"journal_size_limit(" + strconv.Itoa(journalSizeLimit) + ")"}
	// The writer never checkpoints on commit (wal_autocheckpoint=0): the
	// checkpointer does, off the writer's path.
	writer := slices.Concat(common, []string{"busy_timeout(10000)", "wal_autocheckpoint(0)"})
	write, err := sql.Open("sqlite", dsn(path, writer...)+"&mode=rw&_txlock=immediate")
	if err != nil {
		return nil, fmt.Errorf("open database: %w", err)
	}
	write.SetMaxOpenConns(1)
	write.SetConnMaxIdleTime(0)
	read, err := sql.Open("sqlite", dsn(path, slices.Concat(common, []string{"busy_timeout(10000)"})...)+"&mode=rw")
	if err != nil {
		write.Close()
		return nil, fmt.Errorf("open database: %w", err)
	}
	// Readers stay open once opened: a reader opened under load needs file
	// descriptors just when a busy server may have none to spare ("unable
	// to open database file"), and reopening costs a schema read each time.
	read.SetMaxOpenConns(8)
	read.SetMaxIdleConns(8)
	// The checkpointer waits for no lock (no busy_timeout): a checkpoint
	// that would have to is tried again later instead.
	ckpt, err := sql.Open("sqlite", dsn(path, common...)+"&mode=rw")
	if err != nil {
		write.Close()
		read.Close()
		return nil, fmt.Errorf("open database: %w", err)
	}
	ckpt.SetMaxOpenConns(1)
	ckpt.SetConnMaxIdleTime(0)
	b := &binder{eng: engineSQLite}
	db := &DB{eng: engineSQLite, write: pool{write, b}, read: pool{read, b}, live: &liveSessions{}, ckpt: newCheckpointer(ckpt, write, path, checkpointEvery, opts.Durability == CrashSafe, opts.quietAfter), now: opts.Now, path: path}
	db.committed = opts.Committed
	if _, err := db.ready(ctx); err != nil {
		return nil, err
	}
	// From now on every write, and Check, makes sure the file is still
	// the one opened.
	if err := db.health.remember(path); err != nil {
		db.Close()
		return nil, err
	}
	return db, nil
}

// ready migrates the database just opened and prepares the statements of
// the write path; a database that cannot be made ready is closed.
func (db *DB) ready(ctx context.Context) (*DB, error) {
	if err := db.migrateWaiting(ctx); err != nil {
		db.Close()
		return nil, err
	}
	if err := db.stmts.prepare(ctx, db.write, db.eng); err != nil {
		db.Close()
		return nil, fmt.Errorf("open database: %w", err)
	}
	var err error
	if db.stmts.schedulesOf, err = db.read.PrepareContext(ctx, schedulesOfSQL); err != nil {
		db.Close()
		return nil, fmt.Errorf("open database: prepare %q: %w", schedulesOfSQL, err)
	}
	return db, nil
}

// dsn returns the data source name of the database file at path with the
// given pragmas set on each connection.
func dsn(path string, pragmas ...string) string {
	q := url.Values{}
	for _, p := range pragmas {
		q.Add("_pragma", p)
	}
	return "file:" + path + "?" + q.Encode()
}

// Close stops the background checkpoints, checkpoints what is left and
// closes the database; writes already committed are on disk.
func (db *DB) Close() error {
	if db.eng == enginePostgres {
		return errors.Join(db.stmts.closeAll(), db.read.Close())
	}
	return errors.Join(db.ckpt.shutdown(), db.stmts.closeAll(), db.read.Close(), db.write.Close())
}

// Path returns the database file's path; "" on PostgreSQL.
func (db *DB) Path() string { return db.path }

// Engine names the database the store runs on: "sqlite" or "postgres".
func (db *DB) Engine() string { return db.eng.String() }

// Version returns the number of the newest applied migration.
func (db *DB) Version(ctx context.Context) (int, error) {
	var v int
	err := db.read.QueryRowContext(ctx, `SELECT COALESCE(MAX(version), 0) FROM schema_migrations`).Scan(&v)
	return v, err
}

// migrateWaiting migrates the database, waiting out another process that
// opens the same new SQLite file at the same moment. Its busy timeout does
// not cover every lock a connection takes as it opens a new file in WAL
// mode: SQLite answers SQLITE_BUSY at once there rather than wait (seen
// with three processes opening one new file together), so the migration
// is tried again, up to ten seconds in all, as the busy timeout would.
func (db *DB) migrateWaiting(ctx context.Context) error {
	deadline := time.Now().Add(10 * time.Second)
	for wait := 5 * time.Millisecond; ; wait = min(2*wait, 500*time.Millisecond) {
		err := db.migrate(ctx)
		se, busy := errors.AsType[*sqlite.Error](err)
		if !busy || se.Code()&0xff != sqlite3.SQLITE_BUSY || time.Now().Add(wait).After(deadline) {
			return err
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return err
		case <-t.C:
		}
	}
}
