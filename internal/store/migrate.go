package store

import (
	"context"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// migrate applies, in one transaction, the embedded migrations of
// the engine newer than the database, recorded in schema_migrations.
func (db *DB) migrate(ctx context.Context) error {
	create := `CREATE TABLE IF NOT EXISTS schema_migrations (
		version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL) STRICT`
	if db.eng == enginePostgres {
		create = `CREATE TABLE IF NOT EXISTS schema_migrations (
		version integer PRIMARY KEY, name text NOT NULL, applied_at bigint NOT NULL)`
	}
	files, err := fs.Sub(migrations, "migrations/"+db.eng.String())
	if err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	return db.apply(ctx, files, migrationLog{
		create:  create,
		current: `SELECT COALESCE(MAX(version), 0) FROM schema_migrations`,
		record:  `INSERT INTO schema_migrations(version, name, applied_at) VALUES (?, ?, ?)`,
	})
}

// migrationLog is where a set of migrations is recorded as applied: the
// statement that makes its table if there is none, the one that reads
// the newest version applied, and the one that records a version (with
// version, name and time as its last parameters). args come first in
// current and record: the application's name, for an application's set.
type migrationLog struct {
	create, current, record string
	args                    []any
}

// apply applies the migrations NNN_name.sql at the root of files, in the
// order of their numbers, each newer than the newest the log records, in
// one transaction that records each. Files are applied as they
// are, not bound: they have no parameters, and their comments are prose.
// Nodes that start together on one PostgreSQL database take turns: each
// transaction serializes on migrating and reads the version under it, so
// that a migration is applied once, by one of them.
func (db *DB) apply(ctx context.Context, files fs.FS, log migrationLog) error {
	err := db.tx(ctx, func(ctx context.Context, tx *txn) error {
		if err := tx.serialize(ctx, "migrate"); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, log.create)
		return err
	})
	if err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	names, err := fs.Glob(files, "*.sql")
	if err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	sort.Strings(names)
	var applied int
	if err := db.read.QueryRowContext(ctx, log.current, log.args...).Scan(&applied); err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	type migration struct {
		name    string
		version int
		body    []byte
	}
	var pending []migration
	for _, name := range names {
		num, _, ok := strings.Cut(name, "_")
		version, err := strconv.Atoi(num)
		if !ok || err != nil {
			return fmt.Errorf("migrate: bad migration name %q", name)
		}
		if version <= applied {
			continue
		}
		body, err := fs.ReadFile(files, name)
		if err != nil {
			return fmt.Errorf("migrate: %w", err)
		}
		pending = append(pending, migration{name, version, body})
	}
	if len(pending) == 0 {
		return nil
	}
	// All that is pending is applied in one transaction: a new database
	// pays one commit (one sync of the log) for its whole schema rather
	// than one per file, and a database is never left between two
	// versions of it.
	var failed string
	err = db.tx(ctx, func(ctx context.Context, tx *txn) error {
		if err := tx.serialize(ctx, "migrate"); err != nil {
			return err
		}
		var current int
		if err := tx.QueryRowContext(ctx, log.current, log.args...).Scan(&current); err != nil {
			return err
		}
		for _, m := range pending {
			if m.version <= current {
				continue // another node applied it meanwhile
			}
			failed = m.name
			if _, err := tx.Tx.ExecContext(ctx, string(m.body)); err != nil {
				return err
			}
			if _, err := tx.ExecContext(ctx, log.record, slices.Concat(log.args, []any{m.version, path.Base(m.name), db.now().UnixMilli()})...); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil && failed != "" {
		return fmt.Errorf("migrate %s: %w", failed, err)
	}
	if err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	return nil
}
