package pgtest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"
)

// RequiredEnv names the environment variable that turns a missing
// PostgreSQL from a skip into a failure; `make test` sets it, so CI cannot
// pass without having run the PostgreSQL tests.
const RequiredEnv = "SWEATPANTS_PG_REQUIRED"

// shared is the test binary's one server, started by the first test that
// asks for a schema and stopped by Main. It is package state because a
// test binary is one process and the server is its resource: starting a
// server per package or per test would cost a second each.
var shared struct {
	mu      sync.Mutex
	inMain  bool
	started bool
	srv     *Server
	err     error
	admin   *pgxpool.Pool
	next    atomic.Int64
}

// Main runs the tests of m and then stops the server if a test started
// one; call it from TestMain. It exits the process with the tests' code.
func Main(m *testing.M) {
	os.Exit(Run(m))
}

// Run is Main without the exit: it returns the tests' code, or 1 if the
// server could not be stopped and its directory removed.
func Run(m *testing.M) int {
	shared.mu.Lock()
	shared.inMain = true
	shared.mu.Unlock()
	code := m.Run()
	shared.mu.Lock()
	defer shared.mu.Unlock()
	if shared.admin != nil {
		shared.admin.Close()
	}
	if shared.srv != nil {
		if err := shared.srv.Stop(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			if code == 0 {
				code = 1
			}
		}
	}
	return code
}

// server is the shared server, started on first use. A test calling it
// skips when PostgreSQL is not installed, unless RequiredEnv is set; any
// other failure to start fails it.
func server(tb testing.TB) (*Server, *pgxpool.Pool) {
	tb.Helper()
	shared.mu.Lock()
	defer shared.mu.Unlock()
	if !shared.inMain {
		tb.Fatal("pgtest: call pgtest.Main(m) from TestMain, which stops the server when the tests end")
	}
	if !shared.started {
		shared.started = true
		shared.srv, shared.err = Start(context.Background())
		if shared.err == nil {
			shared.admin, shared.err = pgxpool.New(context.Background(), shared.srv.ConnString("postgres", ""))
		}
	}
	if errors.Is(shared.err, ErrNotFound) && os.Getenv(RequiredEnv) == "" {
		tb.Skipf("%v; %s is not set, so this test is skipped", shared.err, RequiredEnv)
	}
	if shared.err != nil {
		tb.Fatal(shared.err)
	}
	return shared.srv, shared.admin
}

// Schema creates a schema of its own for tb on the shared server and
// returns a pgx connection URL whose search_path is that schema, so the
// tables tb creates clash with no other test's. The schema is dropped
// when tb ends.
func Schema(tb testing.TB) string {
	tb.Helper()
	srv, admin := server(tb)
	name := fmt.Sprintf("test_%d", shared.next.Add(1))
	ctx := context.Background()
	if _, err := admin.Exec(ctx, "CREATE SCHEMA "+name); err != nil {
		tb.Fatalf("pgtest: create schema %s: %v", name, err)
	}
	tb.Cleanup(func() {
		if _, err := admin.Exec(ctx, "DROP SCHEMA "+name+" CASCADE"); err != nil {
			tb.Errorf("pgtest: drop schema %s: %v", name, err)
		}
	})
	return srv.ConnString("postgres", name)
}

// Pool is a connection pool on a schema of tb's own (see Schema), closed
// when tb ends, before the schema is dropped.
func Pool(tb testing.TB) *pgxpool.Pool {
	tb.Helper()
	conn := Schema(tb)
	pool, err := pgxpool.New(context.Background(), conn)
	if err != nil {
		tb.Fatalf("pgtest: connect: %v", err)
	}
	tb.Cleanup(pool.Close)
	return pool
}
