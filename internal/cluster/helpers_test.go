package cluster

import (
	"context"
	"errors"
	"os"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/sweatpants-go/sweatpants/internal/store/pgtest"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// wait is how long a test waits for something that should happen at once.
// It is far below the lease TTL of the tests that use it, so only the
// mechanism under test can explain what they see.
const wait = 10 * time.Second

// newCluster is a schema of the test's own with the cluster's tables, as
// the store's PostgreSQL migrations will make them; it returns its URL.
func newCluster(t *testing.T) string {
	t.Helper()
	url := pgtest.Schema(t)
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	for _, name := range []string{"011_cluster.sql", "013_cluster_versions.sql"} {
		ddl, err := os.ReadFile("../store/migrations/postgres/" + name)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := conn.Exec(ctx, string(ddl)); err != nil {
			t.Fatalf("apply %s: %v", name, err)
		}
	}
	return url
}

// join joins a node to the cluster at url, closed when the test ends.
func join(t *testing.T, url string, opts Options) *Node {
	t.Helper()
	if opts.URL == "" {
		opts.URL = "http://127.0.0.1:1"
	}
	if opts.LeaseTTL == 0 {
		opts.LeaseTTL = time.Minute
	}
	n, err := Join(context.Background(), url, opts)
	if err != nil {
		t.Fatalf("join: %v", err)
	}
	t.Cleanup(func() {
		if err := n.Close(); err != nil {
			t.Errorf("close node: %v", err)
		}
	})
	return n
}

// hold holds conversation c on n or fails the test.
func hold(t *testing.T, n *Node, c string) *Lease {
	t.Helper()
	l, err := n.Hold(context.Background(), c)
	if err != nil {
		t.Fatalf("hold %s on %s: %v", c, n.ID(), err)
	}
	return l
}

// elsewhere checks that Hold of c on n says the owner is node want.
func elsewhere(t *testing.T, n *Node, c string, want *Node) {
	t.Helper()
	l, err := n.Hold(context.Background(), c)
	var away *Elsewhere
	if !errors.As(err, &away) {
		if l != nil {
			l.Release()
		}
		t.Fatalf("hold %s on %s: %v, want *Elsewhere naming %s", c, n.ID(), err, want.ID())
	}
	if away.Node != want.ID() || away.URL != want.url || away.Conversation != c {
		t.Errorf("hold %s: Elsewhere %+v, want node %s at %s", c, *away, want.ID(), want.url)
	}
}

// lost waits until the lease is reported lost.
func lost(t *testing.T, l *Lease) {
	t.Helper()
	select {
	case <-l.Lost():
	case <-time.After(wait):
		t.Fatalf("lease of %s not reported lost after %v", l.Conversation(), wait)
	}
}

// notLost checks that the lease is not reported lost (now).
func notLost(t *testing.T, l *Lease) {
	t.Helper()
	select {
	case <-l.Lost():
		t.Errorf("lease of %s reported lost", l.Conversation())
	default:
	}
}

// eventually waits until cond holds, checking every few milliseconds.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(wait)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not after %v", what, wait)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// terminate ends n's dedicated connection from the server's side, as
// PostgreSQL sees a node killed with -9.
func terminate(t *testing.T, n *Node) {
	t.Helper()
	n.mu.Lock()
	pid := n.pid
	n.mu.Unlock()
	var ok bool
	if err := n.pool.QueryRow(context.Background(), "SELECT pg_terminate_backend($1)", pid).Scan(&ok); err != nil || !ok {
		t.Fatalf("terminate backend %d: %v, %v", pid, ok, err)
	}
}

// crash stops n the way kill -9 looks to the database: its connections
// end and nothing is released or deleted.
func (n *Node) crash() {
	n.mu.Lock()
	n.closed = true
	n.mu.Unlock()
	n.stop()
	n.tasks.Wait()
	n.pool.Close()
}

// count is the number of rows of a query's result on the cluster at url.
func count(t *testing.T, url, query string, args ...any) int {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var n int
	if err := conn.QueryRow(ctx, "SELECT count(*) FROM ("+query+") q", args...).Scan(&n); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	return n
}

// exec runs a statement on the cluster at url.
func exec(t *testing.T, url, sql string, args ...any) {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, sql, args...); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
}
