// Package cluster lets several nodes of the same binary share live
// conversations through one PostgreSQL database.
//
// A conversation's live state (a running turn, a waiting question, a
// streaming draft) is in one node's memory at a time. Which node, is a
// lease row: a node takes it with Hold, renews it in the background and
// deletes it on release. A request for a conversation another live node
// holds is forwarded to that node over HTTP (Serve, Route); one for a
// conversation nobody live holds makes this node take the lease and serve
// it. LISTEN/NOTIFY is the bus between nodes: lease wake-ups and a small
// publish/subscribe for other packages.
//
// A node is live while one dedicated connection of its own holds a
// session-level advisory lock (see liveness.go): a node killed with -9
// loses its connection, PostgreSQL drops the lock at once, and any other
// node may take its leases without waiting for them to expire.
package cluster

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/fnv"
	"log/slog"
	"math"
	"net"
	"net/http"
	"net/url"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Options configure a node.
type Options struct {
	// URL is where other nodes reach this node over HTTP, such as
	// "http://10.0.0.5:8080". Forwarded requests go there.
	URL string
	// LeaseTTL is how long a lease lasts without renewal; 10 seconds when
	// zero. A node renews its leases every LeaseTTL/3. A dead node is seen
	// at once through its connection; the TTL bounds the cases PostgreSQL
	// cannot see, such as a node frozen while its connection stays up.
	LeaseTTL time.Duration
	// Now is the clock leases are stamped with. Nil uses the database's
	// clock, so the nodes' own clocks need not agree; tests set it to move
	// one node into the future.
	Now func() time.Time
	// ForwardTimeout is how long a request forwarded to another node,
	// once sent, waits for that node to begin its response; the lease TTL
	// when zero.
	// A node that does not answer by then is asked no longer: the request
	// is done again where the conversation is live now, or refused with
	// 503 and Retry-After if it is still that node's.
	ForwardTimeout time.Duration
	// Version names the build the node runs, and Schema the newest
	// migration of the database that build knows. Both are recorded in the
	// node's row; a node that meets another of a different version warns,
	// naming both (see versions.go).
	Version string
	Schema  int
	// Log receives what the node does on its own: losing and regaining the
	// database, leases lost. Nil discards.
	Log *slog.Logger
}

// ErrDraining is Hold's answer on a node that is shutting down: the
// conversation belongs on another node.
var ErrDraining = errors.New("cluster: this node is shutting down and takes no conversations")

// ErrCutOff is Hold's answer while the node has lost its connection to the
// database: other nodes may already have taken its conversations over.
var ErrCutOff = errors.New("cluster: this node has lost its connection to the database")

// ErrClosed is Hold's answer after Close.
var ErrClosed = errors.New("cluster: node closed")

// Node is this process as a member of the cluster.
type Node struct {
	id      string
	url     string
	key     int64  // the liveness advisory lock's key
	channel string // the NOTIFY channel of this cluster
	ttl     time.Duration
	now     func() time.Time
	log     *slog.Logger

	pool      *pgxpool.Pool
	conf      *pgx.ConnConfig // for the dedicated connection
	transport *http.Transport // to forward requests to other nodes
	owners    owners          // which node holds what, for a moment (owners.go)
	watching  watches         // the forwards in flight (watch.go)

	forwardTimeout time.Duration
	version        string // the build, recorded in the node's row
	schema         int    // the newest migration the build knows

	seq atomic.Int64 // the last lease token handed out

	mu       sync.Mutex
	leases   map[string]*entry
	subs     map[string]map[chan string]struct{}
	live     bool // the dedicated connection holds the lock
	draining bool
	closed   bool
	pid      uint32          // the dedicated connection's backend, for tests
	met      map[string]bool // the nodes compared with this one (versions.go)

	stop  context.CancelFunc
	tasks sync.WaitGroup // the connection's loop and the checks it starts
}

// Join registers this process as a node of the cluster on the database at
// connString and keeps it live until Close. The database must have the
// cluster's tables (internal/store/migrations/postgres/011_cluster.sql).
func Join(ctx context.Context, connString string, opts Options) (*Node, error) {
	if u, err := url.Parse(opts.URL); err != nil || u.Host == "" || u.Scheme != "http" && u.Scheme != "https" {
		return nil, fmt.Errorf("cluster: join: the URL other nodes reach this node at is %q, want http://host:port", opts.URL)
	}
	if opts.LeaseTTL == 0 {
		opts.LeaseTTL = 10 * time.Second
	}
	if opts.LeaseTTL < 30*time.Millisecond {
		return nil, fmt.Errorf("cluster: join: lease TTL %v is too short to renew", opts.LeaseTTL)
	}
	if opts.ForwardTimeout == 0 {
		opts.ForwardTimeout = opts.LeaseTTL
	}
	if opts.Log == nil {
		opts.Log = slog.New(slog.DiscardHandler)
	}
	conf, err := pgx.ParseConfig(connString)
	if err != nil {
		return nil, fmt.Errorf("cluster: join: %w", err)
	}
	keepAlive(conf, opts.LeaseTTL)
	pool, err := pgxpool.New(ctx, connString)
	if err != nil {
		return nil, fmt.Errorf("cluster: join: %w", err)
	}
	var current *string
	if err := pool.QueryRow(ctx, "SELECT current_schema()").Scan(&current); err != nil {
		pool.Close()
		return nil, fmt.Errorf("cluster: join: %w", err)
	}
	if current == nil {
		pool.Close()
		return nil, errors.New("cluster: join: the connection's search_path names no schema that exists")
	}
	schema := *current
	n := &Node{
		url:       opts.URL,
		channel:   channelName(schema),
		ttl:       opts.LeaseTTL,
		now:       opts.Now,
		log:       opts.Log,
		pool:      pool,
		conf:      conf,
		transport: forwarding(),
		leases:    map[string]*entry{},
		subs:      map[string]map[chan string]struct{}{},

		forwardTimeout: opts.ForwardTimeout,
		version:        opts.Version,
		schema:         opts.Schema,
		met:            map[string]bool{},
	}
	// The id is random so that a restarted process is a new node: its
	// predecessor's leases are a dead node's, taken over like any other.
	// A lock key that happens to be taken already means another node drew
	// the same key; a new id draws again.
	var conn *pgx.Conn
	for range 3 {
		n.id = newID()
		n.key = lockKey(schema, n.id)
		conn, err = n.connect(ctx, 0)
		if !errors.Is(err, errKeyTaken) {
			break
		}
	}
	if err != nil {
		pool.Close()
		return nil, fmt.Errorf("cluster: join: %w", err)
	}
	n.forgetDead(ctx)
	n.meet(ctx)
	loop, stop := context.WithCancel(context.Background())
	n.stop = stop
	n.tasks.Add(1)
	go func() {
		defer n.tasks.Done()
		n.run(loop, conn)
	}()
	n.tasks.Add(1)
	go func() {
		defer n.tasks.Done()
		n.watchLeases(loop)
	}()
	n.tasks.Add(1)
	go func() {
		defer n.tasks.Done()
		n.meetNodes(loop)
	}()
	n.log.Info("cluster: joined", "node", n.id, "url", n.url)
	return n, nil
}

// ID is this node's id, random for each Join.
func (n *Node) ID() string { return n.id }

// Drain marks the node as shutting down: Hold refuses every conversation
// with ErrDraining, and other nodes may take this node's leases at once,
// each taking reported on the lease's Lost. The caller suspends its live
// conversations and then calls Close.
func (n *Node) Drain(ctx context.Context) error {
	n.mu.Lock()
	n.draining = true
	n.mu.Unlock()
	if _, err := n.pool.Exec(ctx, "UPDATE cluster_nodes SET draining = true WHERE id = $1", n.id); err != nil {
		return fmt.Errorf("cluster: drain: %w", err)
	}
	return nil
}

// Close leaves the cluster: every lease still held is reported lost and
// released, with a wake-up for each, the node's row is deleted, and its
// connections are closed. Close returns once nothing of the node runs.
func (n *Node) Close() error {
	n.mu.Lock()
	if n.closed {
		n.mu.Unlock()
		return nil
	}
	n.closed = true
	n.mu.Unlock()
	n.stop()
	n.tasks.Wait()
	n.loseAll("node closed")
	ctx, cancel := context.WithTimeout(context.Background(), n.ttl)
	defer cancel()
	var errs []error
	if err := n.releaseAll(ctx, math.MaxInt64); err != nil {
		errs = append(errs, err)
	}
	if _, err := n.pool.Exec(ctx, "DELETE FROM cluster_nodes WHERE id = $1", n.id); err != nil {
		errs = append(errs, fmt.Errorf("cluster: close: delete node: %w", err))
	}
	n.pool.Close()
	n.transport.CloseIdleConnections()
	n.mu.Lock()
	for topic, subs := range n.subs {
		for ch := range subs {
			close(ch)
		}
		delete(n.subs, topic)
	}
	n.mu.Unlock()
	return errors.Join(errs...)
}

// newID is a random node id.
func newID() string {
	b := make([]byte, 8)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// lockKey is the liveness advisory lock's key for node id. Advisory locks
// are database-wide, so the key mixes in the schema: clusters in two
// schemas of one database (parallel tests) never meet. It is kept
// non-negative so that pg_locks' two 32-bit halves put it back together
// simply.
func lockKey(schema, id string) int64 {
	h := fnv.New64a()
	h.Write([]byte(schema))
	h.Write([]byte{0})
	h.Write([]byte(id))
	return int64(h.Sum64() & math.MaxInt64)
}

// channelName is the NOTIFY channel of the cluster in schema. Channels are
// database-wide like advisory locks, so it names the schema; a name over
// PostgreSQL's 63 bytes would be cut short, so a long schema is hashed.
func channelName(schema string) string {
	name := "sweatpants_cluster." + schema
	if len(name) <= 63 {
		return name
	}
	h := fnv.New64a()
	h.Write([]byte(schema))
	return fmt.Sprintf("sweatpants_cluster.%x", h.Sum64())
}

// forwarding is the transport requests are forwarded with. It gives up
// connecting after a few seconds: a node that cannot be reached that long
// is most likely gone, and the request is then served here if it is.
func forwarding() *http.Transport {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.DialContext = (&net.Dialer{Timeout: 3 * time.Second, KeepAlive: 30 * time.Second}).DialContext
	// Requests to one owner come many at once (every answer of its
	// conversations landing elsewhere): with the default 2 idle
	// connections per node most of them dialled anew, hundreds of
	// loopback connections in TIME_WAIT under the benchmark's load.
	t.MaxIdleConnsPerHost = 256
	return t
}
