package cluster

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// The liveness marker is a session-level advisory lock held by the node's
// dedicated connection, rather than an application_name looked up in
// pg_stat_activity: a lock is exclusive, so two nodes can never claim one
// marker; it vanishes exactly when the holding session ends, including when
// the server kills it; and pg_locks shows every role's locks while
// pg_stat_activity hides other roles' sessions from an unprivileged one.
// Both need a session that stays put: behind a pooler in transaction mode
// (PgBouncer) the dedicated connection must bypass the pooler.

// alive is an SQL condition: the node row n's liveness lock is held in this
// database. A bigint advisory key shows in pg_locks as its high half in
// classid and its low half in objid, with objsubid 1.
const alive = `EXISTS (SELECT 1 FROM pg_locks k
	WHERE k.locktype = 'advisory' AND k.granted AND k.objsubid = 1
	  AND k.database = (SELECT oid FROM pg_database WHERE datname = current_database())
	  AND ((k.classid::bigint << 32) | k.objid::bigint) = n.lock_key)`

// nowMS is an SQL expression: the time leases are stamped with, in unix
// ms: the node's injected clock when the query passes @now, else the
// database's, which all nodes share.
const nowMS = `COALESCE(@now::bigint, (extract(epoch FROM clock_timestamp()) * 1000)::bigint)`

// errKeyTaken says another session holds this node's lock key.
var errKeyTaken = errors.New("the node's liveness lock is held by another session")

// keepAlive asks the server to probe the dedicated connection, so that a
// node whose machine vanished (no FIN, no RST) loses its lock within about
// the lease TTL rather than the system's default two hours. The settings
// apply to TCP connections and are ignored on a Unix socket.
func keepAlive(conf *pgx.ConnConfig, ttl time.Duration) {
	secs := func(d time.Duration) string { return strconv.Itoa(max(1, int(d.Round(time.Second)/time.Second))) }
	conf.RuntimeParams["tcp_keepalives_idle"] = secs(ttl / 3)
	conf.RuntimeParams["tcp_keepalives_interval"] = secs(ttl / 6)
	conf.RuntimeParams["tcp_keepalives_count"] = "2"
	conf.RuntimeParams["tcp_user_timeout"] = strconv.Itoa(int(ttl / time.Millisecond))
	conf.RuntimeParams["application_name"] = "sweatpants cluster node"
}

// connect opens the dedicated connection and makes the node live on it:
// the lock, LISTEN, the node's row. Leases of this node with a token up to
// stale were reported lost when an earlier connection broke; they are
// deleted before the lock is taken again, so that other nodes see either a
// dead holder or no row, never a live holder of a lease no one serves.
func (n *Node) connect(ctx context.Context, stale int64) (*pgx.Conn, error) {
	if stale > 0 {
		if err := n.releaseAll(ctx, stale); err != nil {
			return nil, err
		}
	}
	conn, err := pgx.ConnectConfig(ctx, n.conf)
	if err != nil {
		return nil, fmt.Errorf("connect: %w", err)
	}
	fail := func(err error) (*pgx.Conn, error) {
		conn.Close(context.Background())
		return nil, err
	}
	var locked bool
	if err := conn.QueryRow(ctx, "SELECT pg_try_advisory_lock($1)", n.key).Scan(&locked); err != nil {
		return fail(fmt.Errorf("lock: %w", err))
	}
	if !locked {
		return fail(errKeyTaken)
	}
	if _, err := conn.Exec(ctx, "LISTEN "+pgx.Identifier{n.channel}.Sanitize()); err != nil {
		return fail(fmt.Errorf("listen: %w", err))
	}
	n.mu.Lock()
	draining := n.draining
	n.mu.Unlock()
	// The row may have been deleted while the node was cut off (forgetDead
	// on another node), so it is written again on every connection.
	if _, err := conn.Exec(ctx, `INSERT INTO cluster_nodes (id, url, lock_key, started_at, draining, version, schema_version)
		VALUES ($1, $2, $3, $4, $5, $6, $7)
		ON CONFLICT (id) DO UPDATE SET url = excluded.url, lock_key = excluded.lock_key, draining = excluded.draining`,
		n.id, n.url, n.key, time.Now().UnixMilli(), draining, n.version, n.schema); err != nil {
		return fail(fmt.Errorf("register node: %w", err))
	}
	n.mu.Lock()
	n.live = true
	n.pid = conn.PgConn().PID()
	n.mu.Unlock()
	return conn, nil
}

// forgetDead deletes the rows of nodes that are gone and their leases,
// which no one would otherwise delete: a lease of a dead node is free to
// take, but a conversation never opened again would keep its row forever.
//
// Other nodes may be taking those leases over meanwhile, and a node that
// was only cut off may be coming back, so it deletes a lease only as it
// read it, named by its node and token: a lease taken over since names
// another node or token and stays. The dead nodes' rows are locked first
// and their liveness checked again under the lock, so a node seen dead a
// moment ago that has its lock again is left alone; one that gets it back
// later writes its row again before it takes any lease, and waits for
// this transaction to end to do so.
func (n *Node) forgetDead(ctx context.Context) {
	err := pgx.BeginFunc(ctx, n.pool, func(tx pgx.Tx) error {
		rows, err := tx.Query(ctx, `SELECT id FROM cluster_nodes n WHERE NOT `+alive+` FOR UPDATE SKIP LOCKED`)
		if err != nil {
			return err
		}
		seen, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			return err
		}
		if len(seen) > 0 {
			// A statement of its own sees the locks as they are now,
			// whatever the first one's snapshot saw.
			_, err = tx.Exec(ctx, `DELETE FROM cluster_nodes n WHERE id = ANY($1) AND NOT `+alive, seen)
			if err != nil {
				return err
			}
		}
		// The leases of nodes that have no row: those just deleted, and
		// any a failed Close left. A lease this statement waits for (a
		// node taking it over) is compared again as it is then.
		_, err = tx.Exec(ctx, `DELETE FROM cluster_leases l USING (
				SELECT conversation_id, node_id, token FROM cluster_leases o
				WHERE NOT EXISTS (SELECT 1 FROM cluster_nodes n WHERE n.id = o.node_id)) gone
			WHERE l.conversation_id = gone.conversation_id AND l.node_id = gone.node_id AND l.token = gone.token`)
		return err
	})
	if err != nil {
		n.log.Warn("cluster: forget dead nodes", "err", err)
	}
}

// run keeps the node live on conn until ctx ends: it delivers notifications
// and renews leases, and when the connection breaks it reports every lease
// lost and connects again.
func (n *Node) run(ctx context.Context, conn *pgx.Conn) {
	for {
		err := n.keepLive(ctx, conn)
		closeCtx, cancel := context.WithTimeout(context.Background(), time.Second)
		conn.Close(closeCtx)
		cancel()
		if ctx.Err() != nil {
			return
		}
		stale := n.cutOff(err)
		if conn = n.reconnect(ctx, stale); conn == nil {
			return
		}
		n.log.Info("cluster: connected again", "node", n.id)
		n.owners.forgetAll() // a release or takeover may have gone unheard
		n.fanOut(TopicMissed, "")
	}
}

// keepLive waits for notifications on conn and renews the leases every
// TTL/3, until an error. The renewal doubles as the connection's health
// check: one that cannot finish before the leases may expire counts as a
// broken connection, so the node stops acting as owner before another node
// may take its conversations.
func (n *Node) keepLive(ctx context.Context, conn *pgx.Conn) error {
	// sent is when the last renewal was sent: every lease held expires no
	// sooner than TTL after it (a lease taken since, later still).
	sent := time.Now()
	next := sent.Add(n.ttl / 3)
	for {
		wait, cancel := context.WithDeadline(ctx, next)
		note, err := conn.WaitForNotification(wait)
		cancel()
		switch {
		case err == nil:
			n.deliver(ctx, note.Payload)
			continue
		case ctx.Err() != nil:
			return ctx.Err()
		case !pgconn.Timeout(err):
			return fmt.Errorf("wait for notifications: %w", err)
		}
		start := time.Now()
		// A tenth of the TTL is left for the clocks of this node and the
		// database to run at slightly different rates.
		if err := n.renew(ctx, conn, sent.Add(n.ttl-n.ttl/10)); err != nil {
			return err
		}
		sent, next = start, time.Now().Add(n.ttl/3)
	}
}

// renew pushes back the expiry of all of this node's leases in one
// statement, giving up at deadline, and reports lost those it holds whose
// row is no longer its own.
func (n *Node) renew(ctx context.Context, conn *pgx.Conn, deadline time.Time) error {
	// held is taken before the statement: a lease taken after it may not be
	// in the statement's snapshot, and must not be reported lost for that.
	held := n.held()
	ctx, cancel := context.WithDeadline(ctx, deadline)
	defer cancel()
	rows, err := conn.Query(ctx, `UPDATE cluster_leases SET expires_at = `+nowMS+` + @ttl
		WHERE node_id = @node RETURNING conversation_id, token`,
		pgx.NamedArgs{"now": n.clock(), "ttl": n.ttl.Milliseconds(), "node": n.id})
	if err != nil {
		return fmt.Errorf("renew leases: %w", err)
	}
	kept := map[string]int64{}
	var c string
	var token int64
	_, err = pgx.ForEachRow(rows, []any{&c, &token}, func() error {
		kept[c] = token
		return nil
	})
	if err != nil {
		return fmt.Errorf("renew leases: %w", err)
	}
	for c, token := range held {
		if kept[c] != token {
			n.loseIf(c, token, "renewal found the lease taken")
		}
	}
	return nil
}

// cutOff marks the node as no longer live and reports every lease lost:
// without its lock, other nodes may take them at once. It returns the last
// token handed out, which names the leases now stale.
func (n *Node) cutOff(err error) int64 {
	n.mu.Lock()
	n.live = false
	n.mu.Unlock()
	n.log.Warn("cluster: lost the database connection; this node's conversations are lost", "node", n.id, "err", err)
	stale := n.seq.Load()
	n.loseAll("lost the database connection")
	return stale
}

// reconnect connects again, backing off up to TTL/3 between tries, until
// it succeeds or ctx ends (nil).
func (n *Node) reconnect(ctx context.Context, stale int64) *pgx.Conn {
	delay := 50 * time.Millisecond
	for {
		t := time.NewTimer(delay)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil
		case <-t.C:
		}
		try, cancel := context.WithTimeout(ctx, n.ttl)
		conn, err := n.connect(try, stale)
		cancel()
		if err == nil {
			return conn
		}
		n.log.Warn("cluster: connect again", "node", n.id, "err", err)
		delay = min(2*delay, n.ttl/3)
	}
}

// clock is the @now argument of a query: the injected clock in unix ms, or
// nil for the database's.
func (n *Node) clock() *int64 {
	if n.now == nil {
		return nil
	}
	ms := n.now().UnixMilli()
	return &ms
}
