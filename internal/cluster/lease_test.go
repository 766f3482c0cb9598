package cluster

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestAConversationHeldOnOneNodeIsElsewhereForAnother: the node that holds
// a conversation serves it, and every other node is told at once where it
// lives, so it can forward the request there.
func TestAConversationHeldOnOneNodeIsElsewhereForAnother(t *testing.T) {
	url := newCluster(t)
	a := join(t, url, Options{URL: "http://a.test"})
	b := join(t, url, Options{URL: "http://b.test"})
	ctx := context.Background()

	hold(t, a, "c1")
	elsewhere(t, b, "c1", a)

	for _, tc := range []struct {
		name string
		on   *Node
		c    string
		want Owner
	}{
		{"the holder", a, "c1", Owner{Node: a.ID(), URL: "http://a.test", Mine: true}},
		{"another node", b, "c1", Owner{Node: a.ID(), URL: "http://a.test"}},
		{"a conversation no one holds", b, "c2", Owner{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tc.on.Owner(ctx, tc.c)
			if err != nil {
				t.Fatal(err)
			}
			if got != tc.want {
				t.Errorf("Owner(%s) = %+v, want %+v", tc.c, got, tc.want)
			}
		})
	}
}

// TestAConversationHeldTwiceIsOneLeaseUntilTheLastRelease: a turn and a
// stream may hold one conversation at once; it stays on the node until
// both let go, and then any node may take it, woken by TopicReleased.
func TestAConversationHeldTwiceIsOneLeaseUntilTheLastRelease(t *testing.T) {
	url := newCluster(t)
	a := join(t, url, Options{})
	b := join(t, url, Options{})
	released, cancel := b.Subscribe(TopicReleased)
	defer cancel()

	first := hold(t, a, "c1")
	second := hold(t, a, "c1")
	if got := count(t, url, "SELECT 1 FROM cluster_leases WHERE conversation_id = 'c1'"); got != 1 {
		t.Errorf("rows for c1 = %d, want 1", got)
	}
	first.Release()
	first.Release() // a second call does nothing
	elsewhere(t, b, "c1", a)

	second.Release()
	select {
	case got := <-released:
		if got != "c1" {
			t.Errorf("released %q, want c1", got)
		}
	case <-time.After(wait):
		t.Fatal("no wake-up on TopicReleased")
	}
	hold(t, b, "c1")
}

// TestAKilledNodesConversationsAreTakenAtOnce: when a node's connections
// end as they do for a process killed with -9, its liveness lock goes with
// them and another node takes its conversation at once, long before the
// lease expires.
func TestAKilledNodesConversationsAreTakenAtOnce(t *testing.T) {
	url := newCluster(t)
	a := join(t, url, Options{LeaseTTL: time.Hour})
	b := join(t, url, Options{LeaseTTL: time.Hour})
	hold(t, a, "c1")
	elsewhere(t, b, "c1", a)

	a.crash()
	// The server drops the lock as the killed session's backend exits,
	// a moment after the connection closes.
	eventually(t, "b takes c1", func() bool {
		l, err := b.Hold(context.Background(), "c1")
		if err == nil {
			l.Release()
		}
		return err == nil
	})
}

// TestANodeCutOffFromTheDatabaseLosesItsConversations: a node whose
// connection the server ends (pg_terminate_backend) is told at once that
// it lost its conversations, since others may take them now; another node
// takes them; the node connects again, tells its subscribers they may
// have missed messages, and takes conversations as before, leaving none of
// the lost leases looking live.
func TestANodeCutOffFromTheDatabaseLosesItsConversations(t *testing.T) {
	url := newCluster(t)
	a := join(t, url, Options{LeaseTTL: time.Hour})
	b := join(t, url, Options{LeaseTTL: time.Hour})
	l := hold(t, a, "c1")
	idle := hold(t, a, "c3")
	missed, cancel := a.Subscribe(TopicMissed)
	defer cancel()

	terminate(t, a)
	lost(t, l)
	var taken *Lease
	eventually(t, "b takes c1", func() bool {
		var err error
		taken, err = b.Hold(context.Background(), "c1")
		return err == nil
	})
	l.Release() // a lost lease's release deletes nothing of b's

	eventually(t, "a is live again", func() bool {
		l, err := a.Hold(context.Background(), "c2")
		if err == nil {
			l.Release()
		}
		return err == nil
	})
	// What was published while a was cut off never reached it.
	if got := receive(t, "a on TopicMissed", missed); got != "" {
		t.Errorf("TopicMissed payload %q, want none", got)
	}
	elsewhere(t, a, "c1", b)
	taken.Release()
	lost(t, idle)
	hold(t, b, "c3") // not a's: a lost it, even though a is live again
}

// TestAnExpiredLeaseIsTaken: a node that stopped renewing (frozen, or cut
// off in a way the server has not noticed) loses its conversation when
// its lease expires, and is told at once by the node that took it.
func TestAnExpiredLeaseIsTaken(t *testing.T) {
	url := newCluster(t)
	a := join(t, url, Options{})
	// b's clock is an hour ahead: every lease of a's has expired for it.
	b := join(t, url, Options{Now: func() time.Time { return time.Now().Add(time.Hour) }})
	l := hold(t, a, "c1")

	hold(t, b, "c1")
	lost(t, l)
	elsewhere(t, a, "c1", b)
}

// TestRenewalKeepsALeaseAndFindsItTaken: a node renews its leases every
// TTL/3, and a renewal that finds a lease no longer its own reports it
// lost even when no wake-up said so.
func TestRenewalKeepsALeaseAndFindsItTaken(t *testing.T) {
	url := newCluster(t)
	a := join(t, url, Options{LeaseTTL: time.Second})
	l := hold(t, a, "c1")
	q := "SELECT 1 FROM cluster_leases WHERE conversation_id = 'c1' AND expires_at > $1"
	first := time.Now().Add(time.Second).UnixMilli()
	eventually(t, "the lease is renewed", func() bool { return count(t, url, q, first) == 1 })
	notLost(t, l)

	exec(t, url, "UPDATE cluster_leases SET node_id = 'another', token = 0 WHERE conversation_id = 'c1'")
	lost(t, l)
}

// TestADrainingNodesConversationsAreTakenAtOnce: a node shutting down
// takes no conversation, and other nodes take its conversations as soon
// as they need them, telling it so.
func TestADrainingNodesConversationsAreTakenAtOnce(t *testing.T) {
	url := newCluster(t)
	a := join(t, url, Options{})
	b := join(t, url, Options{})
	l := hold(t, a, "c1")
	ctx := context.Background()

	if err := a.Drain(ctx); err != nil {
		t.Fatal(err)
	}
	for _, c := range []string{"c1", "c2"} {
		if _, err := a.Hold(ctx, c); !errors.Is(err, ErrDraining) {
			t.Errorf("hold %s on a draining node: %v, want ErrDraining", c, err)
		}
	}
	if o, err := b.Owner(ctx, "c1"); err != nil || o != (Owner{}) {
		t.Errorf("owner of c1 = %+v, %v; want no one", o, err)
	}
	hold(t, b, "c1")
	lost(t, l)
}

// TestOneOfConcurrentHoldsWins: three nodes asking for one conversation at
// once: exactly one gets it, and the others are told it is that one's.
func TestOneOfConcurrentHoldsWins(t *testing.T) {
	url := newCluster(t)
	nodes := []*Node{join(t, url, Options{}), join(t, url, Options{}), join(t, url, Options{})}
	for i := range 20 {
		c := fmt.Sprintf("c%d", i)
		start := make(chan struct{})
		leases := make([]*Lease, len(nodes))
		errs := make([]error, len(nodes))
		var wg sync.WaitGroup
		for j, n := range nodes {
			wg.Go(func() {
				<-start
				leases[j], errs[j] = n.Hold(context.Background(), c)
			})
		}
		close(start)
		wg.Wait()
		var winner *Node
		for j, l := range leases {
			if l != nil {
				if winner != nil {
					t.Fatalf("%s held by %s and %s", c, winner.ID(), nodes[j].ID())
				}
				winner = nodes[j]
			}
		}
		if winner == nil {
			t.Fatalf("%s held by no one: %v", c, errs)
		}
		for j, err := range errs {
			var away *Elsewhere
			if leases[j] == nil && (!errors.As(err, &away) || away.Node != winner.ID()) {
				t.Errorf("%s on %s: %v, want Elsewhere naming %s", c, nodes[j].ID(), err, winner.ID())
			}
		}
	}
}

// TestClosingANodeReleasesItsLeases: a node that leaves releases every
// conversation it holds, tells its holders, and leaves no row behind.
func TestClosingANodeReleasesItsLeases(t *testing.T) {
	url := newCluster(t)
	a := join(t, url, Options{})
	b := join(t, url, Options{})
	l1, l2 := hold(t, a, "c1"), hold(t, a, "c2")

	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	lost(t, l1)
	lost(t, l2)
	if got := count(t, url, "SELECT 1 FROM cluster_leases WHERE node_id = $1 UNION ALL SELECT 1 FROM cluster_nodes WHERE id = $1", a.ID()); got != 0 {
		t.Errorf("rows of the closed node = %d, want 0", got)
	}
	if _, err := a.Hold(context.Background(), "c3"); !errors.Is(err, ErrClosed) {
		t.Errorf("hold on a closed node: %v, want ErrClosed", err)
	}
	hold(t, b, "c1")
}

// TestAJoiningNodeForgetsDeadNodes: the rows of a node that died stay
// until another node joins, which deletes them and their leases.
func TestAJoiningNodeForgetsDeadNodes(t *testing.T) {
	url := newCluster(t)
	a := join(t, url, Options{})
	hold(t, a, "c1")
	a.crash()
	eventually(t, "the server sees a dead", func() bool {
		return count(t, url, "SELECT 1 FROM cluster_nodes n WHERE id = $1 AND "+alive, a.ID()) == 0
	})

	join(t, url, Options{})
	if got := count(t, url, "SELECT 1 FROM cluster_leases WHERE node_id = $1 UNION ALL SELECT 1 FROM cluster_nodes WHERE id = $1", a.ID()); got != 0 {
		t.Errorf("rows of the dead node = %d, want 0", got)
	}
}

// TestHoldsAndReleasesOfOneConversationRaceSafely: many holds and releases
// of one conversation on two nodes at once: whenever a Hold succeeds, the
// row names its node, and when all are released no row and no entry is
// left.
func TestHoldsAndReleasesOfOneConversationRaceSafely(t *testing.T) {
	url := newCluster(t)
	nodes := []*Node{join(t, url, Options{}), join(t, url, Options{})}
	ctx := context.Background()
	var wg sync.WaitGroup
	for i := range 8 {
		n := nodes[i%2]
		wg.Go(func() {
			for range 25 {
				l, err := n.Hold(ctx, "c1")
				var away *Elsewhere
				if errors.As(err, &away) {
					continue
				}
				if err != nil {
					t.Errorf("hold: %v", err)
					return
				}
				var owner string
				if err := n.pool.QueryRow(ctx, "SELECT node_id FROM cluster_leases WHERE conversation_id = 'c1'").Scan(&owner); err != nil || owner != n.ID() {
					t.Errorf("while %s holds c1 the row names %q (%v)", n.ID(), owner, err)
				}
				l.Release()
			}
		})
	}
	wg.Wait()
	if got := count(t, url, "SELECT 1 FROM cluster_leases"); got != 0 {
		t.Errorf("rows after every release = %d, want 0", got)
	}
	for _, n := range nodes {
		n.mu.Lock()
		left := len(n.leases)
		n.mu.Unlock()
		if left != 0 {
			t.Errorf("%s keeps %d entries after every release, want 0", n.ID(), left)
		}
	}
}

// TestJoinWantsAURLOtherNodesCanReach: a node that other nodes could not
// forward to is refused at once, with the reason.
func TestJoinWantsAURLOtherNodesCanReach(t *testing.T) {
	url := newCluster(t)
	for _, bad := range []string{"", "10.0.0.5:8080", "ftp://a.test"} {
		if _, err := Join(context.Background(), url, Options{URL: bad}); err == nil || !strings.Contains(err.Error(), "want http://host:port") {
			t.Errorf("join with URL %q: %v, want an error naming the form", bad, err)
		}
	}
}
