package store

import (
	"context"
	"database/sql"
	"strings"
	"testing"
	"testing/fstest"
)

// An application's migrations are applied once each, in order, under its
// name, beside the framework's: a second set (a later build's) is
// applied from where the first left off, and another application's
// numbers are its own.
func TestAnApplicationsMigrations(t *testing.T) { contract(t, testAnApplicationsMigrations) }

func testAnApplicationsMigrations(t *testing.T, target string) {
	ctx := context.Background()
	db := openTarget(t, target, Options{}).App()
	first := fstest.MapFS{
		"001_notes.sql":   {Data: []byte("-- The notes.\nCREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT NOT NULL);")},
		"002_authors.sql": {Data: []byte("ALTER TABLE notes ADD COLUMN author TEXT NOT NULL DEFAULT '';")},
		"README.md":       {Data: []byte("not a migration")},
	}
	for range 2 {
		if err := db.Migrate(ctx, "notes", first); err != nil {
			t.Fatal(err)
		}
	}
	later := fstest.MapFS{
		"001_notes.sql":   first["001_notes.sql"],
		"002_authors.sql": first["002_authors.sql"],
		"003_tags.sql":    {Data: []byte("CREATE TABLE tags (note INTEGER NOT NULL, tag TEXT NOT NULL);")},
	}
	if err := db.Migrate(ctx, "notes", later); err != nil {
		t.Fatal(err)
	}
	// Another application's 001 is not the notes' 001.
	if err := db.Migrate(ctx, "other", fstest.MapFS{"001_other.sql": {Data: []byte("CREATE TABLE other (id INTEGER);")}}); err != nil {
		t.Fatal(err)
	}
	err := db.Write(ctx, "notes", func(ctx context.Context, tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO notes(id, body, author) VALUES (1, $1, $2)`, "hello", "ann")
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	var body, author string
	if err := db.QueryRowContext(ctx, `SELECT body, author FROM notes`).Scan(&body, &author); err != nil || body != "hello" || author != "ann" {
		t.Errorf("the note: %q by %q, %v; want hello by ann", body, author, err)
	}
	rows, err := db.QueryContext(ctx, `SELECT app, version, name FROM app_migrations ORDER BY app, version`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var got []string
	for rows.Next() {
		var app, name string
		var version int
		if err := rows.Scan(&app, &version, &name); err != nil {
			t.Fatal(err)
		}
		got = append(got, app+" "+name)
	}
	want := []string{"notes 001_notes.sql", "notes 002_authors.sql", "notes 003_tags.sql", "other 001_other.sql"}
	if len(got) != len(want) {
		t.Fatalf("recorded %q, want %q", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("recorded %q, want %q", got, want)
			break
		}
	}

	if err := db.Migrate(ctx, "notes", fstest.MapFS{"first.sql": {Data: []byte("SELECT 1;")}}); err == nil {
		t.Error("a migration not named NNN_name.sql was applied, want it refused")
	}
	if err := db.Migrate(ctx, "", first); err == nil {
		t.Error("migrations without a name were applied, want them refused")
	}
}

// A set of migrations that fails part way applies none of what was pending:
// the database stays at the version it had, the error names the file that
// failed, and the set applies whole once it is mended.
func TestMigrationsThatFailApplyNothing(t *testing.T) {
	contract(t, func(t *testing.T, target string) {
		ctx := context.Background()
		db := openTarget(t, target, Options{}).App()
		notes := fstest.MapFS{"001_notes.sql": {Data: []byte("CREATE TABLE notes (id INTEGER PRIMARY KEY);")}}
		if err := db.Migrate(ctx, "notes", notes); err != nil {
			t.Fatal(err)
		}
		broken := fstest.MapFS{
			"001_notes.sql": notes["001_notes.sql"],
			"002_tags.sql":  {Data: []byte("CREATE TABLE tags (note INTEGER NOT NULL);")},
			"003_oops.sql":  {Data: []byte("ALTER TABLE nowhere ADD COLUMN x INTEGER;")},
		}
		err := db.Migrate(ctx, "notes", broken)
		if err == nil || !strings.Contains(err.Error(), "003_oops.sql") {
			t.Fatalf("a failing migration: %v, want an error naming 003_oops.sql", err)
		}
		tables := func() (n int) {
			if err := db.QueryRowContext(ctx, `SELECT COUNT(*) FROM app_migrations WHERE app = 'notes'`).Scan(&n); err != nil {
				t.Fatal(err)
			}
			return n
		}
		if n := tables(); n != 1 {
			t.Errorf("%d migrations recorded after a failed set, want the 1 before it", n)
		}
		err = db.Write(ctx, "notes", func(ctx context.Context, tx *sql.Tx) error {
			_, err := tx.ExecContext(ctx, `INSERT INTO tags(note) VALUES (1)`)
			return err
		})
		if err == nil {
			t.Error("002_tags.sql was applied though its set failed")
		}
		broken["003_oops.sql"] = &fstest.MapFile{Data: []byte("CREATE TABLE oops (id INTEGER);")}
		if err := db.Migrate(ctx, "notes", broken); err != nil {
			t.Fatal(err)
		}
		if n := tables(); n != 3 {
			t.Errorf("%d migrations recorded after the mended set, want 3", n)
		}
	})
}

// A framework database holds no application's table: the demo's flight
// catalogue is the demo's own (examples/flights/flightsdb).
func TestANewDatabaseHoldsNoApplicationsTables(t *testing.T) {
	contract(t, func(t *testing.T, target string) {
		db := openTarget(t, target, Options{})
		for _, table := range []string{"flights", "bookings", "app_migrations"} {
			var n int
			q := `SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name = ?`
			if db.eng == enginePostgres {
				q = `SELECT COUNT(*) FROM information_schema.tables WHERE table_schema = current_schema() AND table_name = ?`
			}
			if err := db.read.QueryRowContext(t.Context(), q, table).Scan(&n); err != nil || n != 0 {
				t.Errorf("a new database has %d tables named %s (%v), want none", n, table, err)
			}
		}
	})
}

// Databases recorded the framework's migrations up to 015 before the
// demo's tables left the framework (004 and 015 made them): this build
// still knows that number, so it does not take those databases for a
// newer build's, and migrates a new database to the same version.
func TestRetiredMigrationsKeepTheirNumbers(t *testing.T) {
	db := MustOpen(t)
	v, err := db.Version(t.Context())
	if err != nil || v < 15 || v != db.Known() {
		t.Errorf("a new database is at version %d (%v), this build knows %d; want both the same, at least 15", v, err, db.Known())
	}
}
