package store

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/sweatpants-go/sweatpants/internal/apperr"
	"github.com/sweatpants-go/sweatpants/internal/store/pgtest"
)

// wantRefused fails t unless err is coded code with message msg.
func wantRefused(t *testing.T, what string, err error, code apperr.Code, msg string) {
	t.Helper()
	if got := apperr.CodeOf(err); got != code {
		t.Errorf("%s: got %v (code %s), want code %s", what, err, got, code)
	}
	if got := apperr.MessageOf(err); got != msg {
		t.Errorf("%s: the user is told %q, want %q", what, got, msg)
	}
}

// A SQLite file deleted, or replaced by another, while the store has it
// open takes no more writes: SQLite would write to the deleted file, and
// what it acknowledged would be gone at the next start. Check says so too.
func TestADatabaseFileDeletedOrReplacedTakesNoWrites(t *testing.T) {
	ctx := context.Background()
	for _, how := range []string{"deleted", "replaced"} {
		t.Run(how, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "data", "test.db")
			db := openTarget(t, path, Options{})
			if err := db.EnsureSession(ctx, "s1"); err != nil {
				t.Fatal(err)
			}
			if err := db.Check(ctx); err != nil {
				t.Fatalf("Check of a database in place: %v", err)
			}
			for _, suffix := range []string{"", "-wal", "-shm"} {
				if err := os.Remove(path + suffix); err != nil {
					t.Fatal(err)
				}
			}
			if how == "replaced" {
				other := openTarget(t, filepath.Join(t.TempDir(), "other.db"), Options{})
				other.Close()
				if err := os.Rename(other.Path(), path); err != nil {
					t.Fatal(err)
				}
			}
			wantRefused(t, "a write", db.EnsureSession(ctx, "s2"), apperr.Unavailable, goneMessage)
			err := db.Check(ctx)
			wantRefused(t, "Check", err, apperr.Unavailable, goneMessage)
			if err == nil || !strings.Contains(err.Error(), path) {
				t.Errorf("Check's error %v does not name the file %s, for the operator's log", err, path)
			}
		})
	}
}

// A write the database refuses as read-only is answered with what is
// wrong, on both engines; once a write can be made again, Check says the
// store is ready (it tries one, since the last write failed).
func TestAWriteAReadOnlyDatabaseRefusesSaysWhy(t *testing.T) {
	contract(t, func(t *testing.T, target string) {
		ctx := context.Background()
		db := openTarget(t, target, Options{})
		readOnly := `PRAGMA query_only = 1`
		if db.eng == enginePostgres {
			readOnly = `SET TRANSACTION READ ONLY`
		}
		err := db.tx(ctx, func(ctx context.Context, tx *txn) error {
			if _, err := tx.ExecContext(ctx, readOnly); err != nil {
				return err
			}
			_, err := tx.ExecContext(ctx, `INSERT INTO schema_migrations(version, name, applied_at) VALUES (1000, 'x', 0)`)
			return err
		})
		if db.eng == engineSQLite {
			if _, err := db.write.ExecContext(ctx, `PRAGMA query_only = 0`); err != nil {
				t.Fatal(err)
			}
		}
		wantRefused(t, "a write", err, apperr.Unavailable, readOnlyMessage)
		if err := db.Check(ctx); err != nil {
			t.Errorf("Check once writes work again: %v", err)
		}
		if err := db.EnsureSession(ctx, "s1"); err != nil {
			t.Errorf("a write once writes work again: %v", err)
		}
	})
}

// While the SQLite database cannot write (read-only here), Check says so
// with the reason, and says ready once it can write again.
func TestCheckFailsWhileTheDatabaseCannotWrite(t *testing.T) {
	ctx := context.Background()
	db := MustOpen(t)
	if _, err := db.write.ExecContext(ctx, `PRAGMA query_only = 1`); err != nil {
		t.Fatal(err)
	}
	if err := db.Check(ctx); err != nil {
		t.Errorf("Check before any write failed: %v (it writes nothing while writes succeed)", err)
	}
	wantRefused(t, "a write", db.EnsureSession(ctx, "s1"), apperr.Unavailable, readOnlyMessage)
	wantRefused(t, "Check", db.Check(ctx), apperr.Unavailable, readOnlyMessage)
	if _, err := db.write.ExecContext(ctx, `PRAGMA query_only = 0`); err != nil {
		t.Fatal(err)
	}
	if err := db.Check(ctx); err != nil {
		t.Errorf("Check once the database can write: %v", err)
	}
}

// A full disk (SQLITE_FULL, made here by capping the file's pages) is
// answered as no space, with what is wrong; Check fails while a write
// needs room it cannot have, and passes once there is room again.
func TestAFullDatabaseSaysSo(t *testing.T) {
	ctx := context.Background()
	db := MustOpen(t)
	var pages int
	if err := db.write.QueryRowContext(ctx, `PRAGMA page_count`).Scan(&pages); err != nil {
		t.Fatal(err)
	}
	if _, err := db.write.ExecContext(ctx, `PRAGMA max_page_count = `+strconv.Itoa(pages+4)); err != nil {
		t.Fatal(err)
	}
	var err error
	for i := 0; i < 100 && err == nil; i++ {
		err = db.tx(ctx, func(ctx context.Context, tx *txn) error {
			_, err := tx.ExecContext(ctx, `INSERT INTO schema_migrations(version, name, applied_at) VALUES (?, ?, 0)`,
				1000+i, strings.Repeat("x", 4000))
			return err
		})
	}
	wantRefused(t, "a write with no room", err, apperr.NoRoom, fullMessage)
	wantRefused(t, "Check", db.Check(ctx), apperr.NoRoom, fullMessage)
	if _, err := db.write.ExecContext(ctx, `PRAGMA max_page_count = 1000000`); err != nil {
		t.Fatal(err)
	}
	if err := db.Check(ctx); err != nil {
		t.Errorf("Check once there is room: %v", err)
	}
}

// A write whose connection to PostgreSQL is cut (the server restarting,
// an administrator ending it) is answered as unavailable for a moment,
// not as a failure of ours.
func TestAWriteCutFromPostgreSQLIsUnavailable(t *testing.T) {
	ctx := context.Background()
	db := openTarget(t, pgtest.Schema(t), Options{})
	err := db.tx(ctx, func(ctx context.Context, tx *txn) error {
		_, err := tx.ExecContext(ctx, `SELECT pg_terminate_backend(pg_backend_pid())`)
		return err
	})
	wantRefused(t, "a write cut off", err, apperr.Unavailable, lostMessage)
	if err := db.EnsureSession(ctx, "s1"); err != nil {
		t.Errorf("a write on a new connection: %v", err)
	}
}

// A read whose connection to PostgreSQL is cut is answered as unavailable
// for a moment too: a page load in flight while the server restarts.
func TestAReadCutFromPostgreSQLIsUnavailable(t *testing.T) {
	ctx := context.Background()
	db := openTarget(t, pgtest.Schema(t), Options{})
	const kill = `SELECT pg_terminate_backend(pg_backend_pid())`
	var ok bool
	wantRefused(t, "a row read", db.read.QueryRowContext(ctx, kill).Scan(&ok), apperr.Unavailable, lostMessage)
	rows, err := db.read.QueryContext(ctx, kill)
	if err == nil {
		for rows.Next() {
		}
		err = rows.Err()
		rows.Close()
	}
	if err != nil { // the statement's error comes with the query or with its rows
		wantRefused(t, "a query", err, apperr.Unavailable, lostMessage)
	}
	if _, err := db.Version(ctx); err != nil {
		t.Errorf("a read on a new connection: %v", err)
	}
}

// A reader the pool opens after the file was deleted does not make a new,
// empty database in its place: readers would see nothing of what the
// writer (still holding the deleted file) wrote, and a start after a
// crash would take the empty file for the database.
func TestAReaderOpenedAfterTheFileIsDeletedMakesNoNewOne(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "data", "test.db")
	db := openTarget(t, path, Options{})
	if err := db.EnsureSession(ctx, "s1"); err != nil {
		t.Fatal(err)
	}
	for _, suffix := range []string{"", "-wal", "-shm"} {
		if err := os.Remove(path + suffix); err != nil {
			t.Fatal(err)
		}
	}
	// Every reader the pool may hold, each kept busy so the next needs
	// one of its own: at least one is opened after the deletion.
	for range 8 {
		rows, err := db.read.QueryContext(ctx, "SELECT 1")
		if err == nil {
			defer rows.Close()
		}
	}
	if _, err := os.Stat(path); err == nil {
		t.Errorf("%s is there again after its readers opened: a new, empty database", path)
	}
}
