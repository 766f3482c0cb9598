package cluster

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"
)

// TestForgettingDeadNodesKeepsALeaseTakenMeanwhile: a joining node
// deletes a dead node's leases while a live node takes one of them over;
// the lease the live node took stays, and it is still the holder's.
//
// The test makes the two meet in the worst order: a transaction of its
// own locks the dead node's lease, the live node's takeover queues behind
// it and the clean-up's delete behind that, so the takeover commits while
// the delete has already read the row as the dead node's.
func TestForgettingDeadNodesKeepsALeaseTakenMeanwhile(t *testing.T) {
	url := newCluster(t)
	a := join(t, url, Options{})
	b := join(t, url, Options{})
	c := join(t, url, Options{})
	hold(t, a, "c1")
	a.crash()
	eventually(t, "the server sees a dead", func() bool {
		return count(t, url, "SELECT 1 FROM cluster_nodes n WHERE id = $1 AND "+alive, a.ID()) == 0
	})

	ctx := context.Background()
	gate, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer gate.Close(ctx)
	tx, err := gate.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, "SELECT 1 FROM cluster_leases WHERE conversation_id = 'c1' FOR UPDATE"); err != nil {
		t.Fatal(err)
	}
	gatePID := gate.PgConn().PID()

	type held struct {
		l   *Lease
		err error
	}
	took := make(chan held, 1)
	go func() {
		l, err := b.Hold(ctx, "c1")
		took <- held{l, err}
	}()
	eventually(t, "b's takeover waits for the row", func() bool { return blockedBy(t, url, gatePID) == 1 })
	forgot := make(chan struct{})
	go func() {
		c.forgetDead(ctx)
		close(forgot)
	}()
	eventually(t, "the clean-up's delete waits for the row", func() bool { return blockedBy(t, url, gatePID) == 2 })
	if err := tx.Rollback(ctx); err != nil {
		t.Fatal(err)
	}

	h := <-took
	if h.err != nil {
		t.Fatalf("b takes c1: %v", h.err)
	}
	<-forgot
	if got := count(t, url, "SELECT 1 FROM cluster_leases WHERE conversation_id = 'c1' AND node_id = $1", b.ID()); got != 1 {
		t.Errorf("rows of c1 naming b after the clean-up = %d, want 1", got)
	}
	if got := count(t, url, "SELECT 1 FROM cluster_nodes WHERE id = $1", a.ID()); got != 0 {
		t.Errorf("rows of the dead node = %d, want 0", got)
	}
	elsewhere(t, c, "c1", b)
	notLost(t, h.l)
}

// blockedBy is the number of sessions waiting, directly or through one
// another, for a lock the session pid holds.
func blockedBy(t *testing.T, url string, pid uint32) int {
	return count(t, url, `WITH RECURSIVE blocked(pid) AS (
			SELECT pid FROM pg_stat_activity WHERE $1::int = ANY(pg_blocking_pids(pid))
			UNION
			SELECT a.pid FROM pg_stat_activity a JOIN blocked w ON w.pid = ANY(pg_blocking_pids(a.pid))
		) SELECT pid FROM blocked`, int(pid))
}
