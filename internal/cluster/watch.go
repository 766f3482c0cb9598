package cluster

import (
	"context"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
)

// A forwarded request watches its conversation's lease while the owner
// serves it: the owner's renewals are its heartbeat. An owner frozen with
// its connection up (stopped, swapping) keeps its liveness lock but stops
// renewing, so its lease expires after the TTL and another node may take
// the conversation; the forward to it is then cut and done again where
// the conversation is live now, rather than waiting on the frozen node.

// watch is one forward's watch on a conversation held by node.
type watch struct {
	conversation string
	node         string
	moved        chan struct{} // closed once the lease is no longer node's
	once         sync.Once
}

// move closes w.moved, once.
func (w *watch) move() { w.once.Do(func() { close(w.moved) }) }

// watches are the forwards in flight, by conversation.
type watches struct {
	mu sync.Mutex
	by map[string]map[*watch]struct{}
}

// add watches conversation c's lease for a forward to node.
func (ws *watches) add(c, node string) *watch {
	w := &watch{conversation: c, node: node, moved: make(chan struct{})}
	ws.mu.Lock()
	defer ws.mu.Unlock()
	if ws.by == nil {
		ws.by = map[string]map[*watch]struct{}{}
	}
	if ws.by[c] == nil {
		ws.by[c] = map[*watch]struct{}{}
	}
	ws.by[c][w] = struct{}{}
	return w
}

// remove ends w.
func (ws *watches) remove(w *watch) {
	ws.mu.Lock()
	defer ws.mu.Unlock()
	delete(ws.by[w.conversation], w)
	if len(ws.by[w.conversation]) == 0 {
		delete(ws.by, w.conversation)
	}
}

// conversations are the conversations watched now.
func (ws *watches) conversations() []string {
	ws.mu.Lock()
	defer ws.mu.Unlock()
	cs := make([]string, 0, len(ws.by))
	for c := range ws.by {
		cs = append(cs, c)
	}
	return cs
}

// watching reports whether a forward watches c.
func (ws *watches) watching(c string) bool {
	ws.mu.Lock()
	defer ws.mu.Unlock()
	return len(ws.by[c]) > 0
}

// moved closes the watches of c whose node no longer holds it (holder is
// "" when no live node does).
func (ws *watches) moved(c, holder string) {
	ws.mu.Lock()
	defer ws.mu.Unlock()
	for w := range ws.by[c] {
		if w.node != holder {
			w.move()
		}
	}
}

// holdersSQL is who holds each of the conversations @cs that has a lease:
// the node of an unexpired lease whose node is live, else "". A draining
// holder still holds: it finishes what it was forwarded, and its streams
// end on their own when it lets go. A conversation with no lease was let
// go by its owner, which is live and answers, and is left out.
const holdersSQL = `SELECT c.id, CASE WHEN l.expires_at > clock.ms AND n.id IS NOT NULL AND ` + alive + `
		THEN l.node_id ELSE '' END
	FROM unnest(@cs::text[]) c(id)
	JOIN cluster_leases l ON l.conversation_id = c.id
	LEFT JOIN cluster_nodes n ON n.id = l.node_id,
	(SELECT ` + nowMS + ` AS ms) clock`

// checkWatches reads who holds the conversations cs and cuts the forwards
// to any other node.
func (n *Node) checkWatches(ctx context.Context, cs []string) {
	if len(cs) == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, n.ttl)
	defer cancel()
	rows, err := n.pool.Query(ctx, holdersSQL, pgx.NamedArgs{"cs": cs, "now": n.clock()})
	if err != nil {
		n.log.Warn("cluster: check where forwarded conversations are live", "err", err)
		return
	}
	var c, holder string
	_, err = pgx.ForEachRow(rows, []any{&c, &holder}, func() error {
		n.watching.moved(c, holder)
		return nil
	})
	if err != nil {
		n.log.Warn("cluster: check where forwarded conversations are live", "err", err)
	}
}

// watchLeases checks the leases of forwarded conversations every TTL/3
// until ctx ends: an expiry is nobody's news on the bus, and a wake-up may
// be lost.
func (n *Node) watchLeases(ctx context.Context) {
	t := time.NewTicker(n.ttl / 3)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			n.checkWatches(ctx, n.watching.conversations())
		}
	}
}
