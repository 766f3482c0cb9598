package pgtest_test

import (
	"context"
	"errors"
	"os"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/sweatpants-go/sweatpants/internal/store/pgtest"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// TestSchemasIsolateParallelTests has two parallel tests create a table of
// the same name and see only their own rows: a store test may create its
// tables freely without knowing what else runs beside it.
func TestSchemasIsolateParallelTests(t *testing.T) {
	for _, word := range []string{"first", "second"} {
		t.Run(word, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			pool := pgtest.Pool(t)
			if _, err := pool.Exec(ctx, "CREATE TABLE notes (body text NOT NULL)"); err != nil {
				t.Fatalf("create table: %v", err)
			}
			if _, err := pool.Exec(ctx, "INSERT INTO notes (body) VALUES ($1)", word); err != nil {
				t.Fatalf("insert: %v", err)
			}
			rows, err := pool.Query(ctx, "SELECT body FROM notes")
			if err != nil {
				t.Fatalf("select: %v", err)
			}
			var got []string
			for rows.Next() {
				var s string
				if err := rows.Scan(&s); err != nil {
					t.Fatalf("scan: %v", err)
				}
				got = append(got, s)
			}
			if err := rows.Err(); err != nil {
				t.Fatalf("rows: %v", err)
			}
			if len(got) != 1 || got[0] != word {
				t.Errorf("notes = %q, want only %q", got, word)
			}
		})
	}
}

// TestStopRemovesTheServer starts a server of its own and stops it: the
// server no longer answers and its directory, data and socket, is gone.
func TestStopRemovesTheServer(t *testing.T) {
	ctx := context.Background()
	srv, err := pgtest.Start(ctx)
	if errors.Is(err, pgtest.ErrNotFound) && os.Getenv(pgtest.RequiredEnv) == "" {
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	dir := srv.Dir()
	if _, err := os.Stat(dir); err != nil {
		t.Fatalf("server's directory while running: %v", err)
	}
	if err := srv.Stop(); err != nil {
		t.Fatalf("stop: %v", err)
	}
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("server's directory %s after Stop: %v, want it removed", dir, err)
	}
}

// TestDurableKeepsCommitsOnDisk starts a durable server beside the shared
// test one: a benchmark of commits measures the durable one's fsync and
// synchronous commit, PostgreSQL's defaults, while tests keep both off.
func TestDurableKeepsCommitsOnDisk(t *testing.T) {
	ctx := context.Background()
	test := pgtest.Pool(t)
	srv, err := pgtest.StartWith(ctx, pgtest.Options{Durable: true})
	if err != nil {
		t.Fatal(err) // Pool skipped already if PostgreSQL is missing
	}
	t.Cleanup(func() { srv.Stop() })
	durable, err := pgx.Connect(ctx, srv.ConnString("postgres", ""))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { durable.Close(ctx) })
	for _, setting := range []string{"fsync", "synchronous_commit", "full_page_writes"} {
		for _, tc := range []struct {
			name string
			db   interface {
				QueryRow(context.Context, string, ...any) pgx.Row
			}
			want string
		}{{"durable", durable, "on"}, {"test", test, "off"}} {
			var got string
			if err := tc.db.QueryRow(ctx, "SELECT current_setting($1)", setting).Scan(&got); err != nil {
				t.Fatal(err)
			}
			if got != tc.want {
				t.Errorf("the %s server's %s = %s, want %s", tc.name, setting, got, tc.want)
			}
		}
	}
}
