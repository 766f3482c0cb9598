package cluster

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/jackc/pgx/v5"
)

// Elsewhere is Hold's error when another live node holds the conversation:
// requests for it belong on that node, at URL.
type Elsewhere struct {
	Conversation string
	Node         string
	URL          string
}

func (e *Elsewhere) Error() string {
	return fmt.Sprintf("cluster: conversation %s is live on node %s (%s)", e.Conversation, e.Node, e.URL)
}

// Lease is one Hold of a conversation. A conversation held several times
// on one node is one row, deleted when the last Lease is released.
type Lease struct {
	n            *Node
	conversation string
	e            *entry
	lost         chan struct{}
	once         sync.Once
}

// Conversation is the conversation the lease holds.
func (l *Lease) Conversation() string { return l.conversation }

// Lost is closed when this node lost the conversation: its connection to
// the database broke, another node took the lease over (this node was
// draining, or seemed dead or frozen to it), or the node closed. The holder
// must stop serving the conversation at once and release the lease.
func (l *Lease) Lost() <-chan struct{} { return l.lost }

// Release ends this hold; the last release of a conversation on this node
// deletes its row, with a wake-up on TopicReleased. Calling it again does
// nothing.
func (l *Lease) Release() {
	l.once.Do(func() { l.n.release(l.conversation, l.e) })
}

// entry is what a node knows of one conversation it holds or is taking.
type entry struct {
	mu sync.Mutex // serialises Holds that may take this conversation's row

	// The fields below are guarded by Node.mu.
	users int           // Holds that reached this entry; it leaves the map at zero
	count int           // Holds that succeeded and are not released
	token int64         // the taking the row should carry while count > 0
	lost  chan struct{} // closed when that taking is lost
	gone  bool          // lost: out of the map, kept only by its holders
}

// Hold takes the conversation's lease for this node, or keeps it if held
// already. It returns *Elsewhere at once when another live node holds it;
// ErrDraining, ErrCutOff or ErrClosed when this node cannot take it.
func (n *Node) Hold(ctx context.Context, conversation string) (*Lease, error) {
	for {
		e, err := n.enter(conversation)
		if err != nil {
			return nil, err
		}
		l, err := n.hold(ctx, conversation, e)
		if l == nil && err == nil {
			continue // the entry was lost while this Hold waited for it
		}
		return l, err
	}
}

// enter finds or makes the conversation's entry and counts this Hold on it.
func (n *Node) enter(c string) (*entry, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if err := n.refuse(); err != nil {
		return nil, err
	}
	e := n.leases[c]
	if e == nil {
		e = &entry{}
		n.leases[c] = e
	}
	e.users++
	return e, nil
}

// leave uncounts a Hold from the entry, dropping the entry when no Hold
// uses it.
func (n *Node) leave(c string, e *entry) {
	n.mu.Lock()
	defer n.mu.Unlock()
	e.users--
	if e.users == 0 && n.leases[c] == e {
		delete(n.leases, c)
	}
}

// refuse is why this node takes no conversation now, or nil. Called with
// n.mu held.
func (n *Node) refuse() error {
	switch {
	case n.closed:
		return ErrClosed
	case n.draining:
		return ErrDraining
	case !n.live:
		return ErrCutOff
	}
	return nil
}

// hold counts one more Hold on e, taking the row if e holds nothing yet. It
// returns neither a lease nor an error when e was lost meanwhile.
func (n *Node) hold(ctx context.Context, c string, e *entry) (*Lease, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	n.mu.Lock()
	if e.gone {
		n.mu.Unlock()
		n.leave(c, e)
		return nil, nil
	}
	// The node may have begun draining or lost the database while this
	// Hold waited for another one of the same conversation.
	if err := n.refuse(); err != nil {
		n.mu.Unlock()
		n.leave(c, e)
		return nil, err
	}
	if e.count > 0 {
		e.count++
		l := &Lease{n: n, conversation: c, e: e, lost: e.lost}
		n.mu.Unlock()
		return l, nil
	}
	n.mu.Unlock()
	token := n.seq.Add(1)
	if err := n.take(ctx, c, token); err != nil {
		n.leave(c, e)
		return nil, err
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	e.count, e.token, e.lost = 1, token, make(chan struct{})
	l := &Lease{n: n, conversation: c, e: e, lost: e.lost}
	// Losing the database or closing while the row was written reported
	// lost only what was held then; this lease is as lost as they are.
	if n.closed || !n.live {
		n.lose(c, e, "lost the database connection while taking the lease")
	}
	return l, nil
}

// takeSQL takes a conversation's lease in one statement: the row is
// written when there is none, or when its holder is this node, its lease
// expired, or its node is dead (no row or no lock) or draining. It also
// returns who held it before the statement, to name the owner when the
// row was not taken and to wake a previous holder that was overtaken.
const takeSQL = `WITH prev AS (
	SELECT l.node_id, n.url FROM cluster_leases l LEFT JOIN cluster_nodes n ON n.id = l.node_id
	WHERE l.conversation_id = @conversation
), taken AS (
	INSERT INTO cluster_leases AS l (conversation_id, node_id, token, expires_at, taken_at)
	SELECT @conversation, @node, @token, clock.ms + @ttl, clock.ms FROM (SELECT ` + nowMS + ` AS ms) clock
	ON CONFLICT (conversation_id) DO UPDATE
	SET node_id = excluded.node_id, token = excluded.token,
	    expires_at = excluded.expires_at, taken_at = excluded.taken_at
	WHERE l.node_id = excluded.node_id
	   OR l.expires_at <= excluded.taken_at
	   OR NOT EXISTS (SELECT 1 FROM cluster_nodes n WHERE n.id = l.node_id AND NOT n.draining AND ` + alive + `)
	RETURNING 1
)
SELECT EXISTS (SELECT 1 FROM taken), (SELECT node_id FROM prev), (SELECT url FROM prev)`

// take writes the conversation's row for this node with token.
func (n *Node) take(ctx context.Context, c string, token int64) error {
	// A holder that committed after this statement's snapshot began is in
	// neither prev nor taken; the next try sees it unless it released the
	// conversation meanwhile, and then may take it. Only a conversation
	// changing hands continually loses ten tries.
	for range 10 {
		var taken bool
		var prev, url *string
		err := n.pool.QueryRow(ctx, takeSQL, pgx.NamedArgs{
			"conversation": c, "node": n.id, "token": token,
			"now": n.clock(), "ttl": n.ttl.Milliseconds(),
		}).Scan(&taken, &prev, &url)
		if err != nil {
			return fmt.Errorf("cluster: take lease of %s: %w", c, err)
		}
		switch {
		case taken && prev != nil && *prev != n.id:
			// The overtaken node hears it at once rather than at its next
			// renewal; if this wake-up is lost, the renewal still tells it.
			if err := n.Publish(ctx, TopicTaken, c); err != nil {
				n.log.Warn("cluster: announce a lease taken over", "conversation", c, "err", err)
			}
			return nil
		case taken:
			return nil
		case prev != nil:
			e := &Elsewhere{Conversation: c, Node: *prev}
			if url != nil {
				e.URL = *url
			}
			return e
		}
	}
	return fmt.Errorf("cluster: take lease of %s: it keeps changing hands", c)
}

// release uncounts a Hold of c; the last deletes the row this node took.
// It need not wait for a Hold taking c meanwhile: the delete names the
// token of the taking it ends, so it cannot delete a newer one.
func (n *Node) release(c string, e *entry) {
	defer n.leave(c, e)
	n.mu.Lock()
	e.count--
	last, token := e.count == 0, e.token
	closed := n.closed
	n.mu.Unlock()
	if !last || closed {
		return // Close deleted every lease of the node
	}
	ctx, cancel := context.WithTimeout(context.Background(), n.ttl)
	defer cancel()
	// A row another node took, or that this node took again since, carries
	// another node or token and stays.
	_, err := n.pool.Exec(ctx, `WITH gone AS (
			DELETE FROM cluster_leases WHERE conversation_id = $1 AND node_id = $2 AND token = $3
			RETURNING conversation_id)
		SELECT pg_notify($4, json_build_object('t', $5::text, 'p', conversation_id)::text) FROM gone`,
		c, n.id, token, n.channel, TopicReleased)
	if err != nil {
		// The row stays until it expires or its node is seen dead.
		n.log.Warn("cluster: release lease", "conversation", c, "err", err)
	}
}

// releaseAll deletes this node's leases with a token up to upTo, with a
// wake-up for each.
func (n *Node) releaseAll(ctx context.Context, upTo int64) error {
	_, err := n.pool.Exec(ctx, `WITH gone AS (
			DELETE FROM cluster_leases WHERE node_id = $1 AND token <= $2
			RETURNING conversation_id)
		SELECT pg_notify($3, json_build_object('t', $4::text, 'p', conversation_id)::text) FROM gone`,
		n.id, upTo, n.channel, TopicReleased)
	if err != nil {
		return fmt.Errorf("cluster: release leases: %w", err)
	}
	return nil
}

// held is what this node holds now: each conversation's token.
func (n *Node) held() map[string]int64 {
	n.mu.Lock()
	defer n.mu.Unlock()
	held := make(map[string]int64, len(n.leases))
	for c, e := range n.leases {
		if e.count > 0 {
			held[c] = e.token
		}
	}
	return held
}

// loseIf reports c lost if this node still holds the taking token.
func (n *Node) loseIf(c string, token int64, why string) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if e := n.leases[c]; e != nil && e.count > 0 && e.token == token {
		n.lose(c, e, why)
	}
}

// loseAll reports every conversation this node holds lost.
func (n *Node) loseAll(why string) {
	n.mu.Lock()
	defer n.mu.Unlock()
	for c, e := range n.leases {
		if e.count > 0 {
			n.lose(c, e, why)
		}
	}
}

// lose closes e's Lost and takes it out of the map, so the next Hold of c
// takes the row afresh while the lost holders release theirs. Called with
// n.mu held.
func (n *Node) lose(c string, e *entry, why string) {
	if e.gone {
		return
	}
	e.gone = true
	close(e.lost)
	if n.leases[c] == e {
		delete(n.leases, c)
	}
	n.log.Warn("cluster: lease lost", "node", n.id, "conversation", c, "why", why)
}

// check is the answer to a wake-up that c was taken over: if the row is no
// longer this node's taking, this node lost it.
func (n *Node) check(ctx context.Context, c string) {
	n.mu.Lock()
	e := n.leases[c]
	if e == nil || e.count == 0 {
		n.mu.Unlock()
		return
	}
	token := e.token
	n.mu.Unlock()
	var node string
	var got int64
	err := n.pool.QueryRow(ctx, "SELECT node_id, token FROM cluster_leases WHERE conversation_id = $1", c).Scan(&node, &got)
	if err != nil && !errors.Is(err, pgx.ErrNoRows) {
		n.log.Warn("cluster: check a lease", "conversation", c, "err", err)
		return
	}
	if node != n.id || got != token {
		n.loseIf(c, token, "taken over by node "+node)
	}
}

// Owner is where a conversation is live: on this node (Mine), on another
// node reached at URL, or nowhere (the zero Owner).
type Owner struct {
	Node string
	URL  string
	Mine bool
}

// Owner says which node serves the conversation now. A lease that expired
// or whose node is dead or draining is nobody's: the next Hold takes it.
func (n *Node) Owner(ctx context.Context, conversation string) (Owner, error) {
	var o Owner
	var valid bool
	err := n.pool.QueryRow(ctx, `SELECT l.node_id, COALESCE(n.url, ''),
			n.id IS NOT NULL AND NOT n.draining AND l.expires_at > clock.ms AND `+alive+`
		FROM cluster_leases l LEFT JOIN cluster_nodes n ON n.id = l.node_id,
			(SELECT `+nowMS+` AS ms) clock
		WHERE l.conversation_id = @conversation`,
		pgx.NamedArgs{"conversation": conversation, "now": n.clock()}).Scan(&o.Node, &o.URL, &valid)
	if errors.Is(err, pgx.ErrNoRows) || err == nil && !valid {
		return Owner{}, nil
	}
	if err != nil {
		return Owner{}, fmt.Errorf("cluster: owner of %s: %w", conversation, err)
	}
	o.Mine = o.Node == n.id
	return o, nil
}
