package cluster

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"
)

// Nodes of different builds may share a database for a while, as during a
// rolling deploy, and that is allowed: whether the new build's turns
// replay the old one's records is what the deploy check says, not the
// versions. But a node that joins silently hides a build left behind, so
// each node compares itself with the live nodes it meets, when it joins
// and every TTL after, and warns once per node of another version. A node
// of a build older than the version columns shows as version "" and
// schema 0.

// meet warns of each live node not met yet whose build differs from this
// one's.
func (n *Node) meet(ctx context.Context) {
	ctx, cancel := context.WithTimeout(ctx, n.ttl)
	defer cancel()
	rows, err := n.pool.Query(ctx, `SELECT id, url, version, schema_version FROM cluster_nodes n
		WHERE id <> $1 AND `+alive, n.id)
	if err != nil {
		n.log.Warn("cluster: compare versions with the other nodes", "err", err)
		return
	}
	var id, url, version string
	var schema int
	live := map[string]bool{}
	_, err = pgx.ForEachRow(rows, []any{&id, &url, &version, &schema}, func() error {
		live[id] = true
		n.mu.Lock()
		met := n.met[id]
		n.met[id] = true
		n.mu.Unlock()
		if met {
			return nil
		}
		if version == n.version && schema == n.schema {
			return nil
		}
		n.log.Warn("cluster: a node of another version shares this database; run the new build's deploy check (check) to see whether waiting turns replay on both",
			"node", id, "url", url, "its_version", shown(version), "its_schema", schema,
			"this_version", shown(n.version), "this_schema", n.schema)
		return nil
	})
	if err != nil {
		n.log.Warn("cluster: compare versions with the other nodes", "err", err)
		return
	}
	// A node gone is forgotten: ids are new with each start.
	n.mu.Lock()
	defer n.mu.Unlock()
	for id := range n.met {
		if !live[id] {
			delete(n.met, id)
		}
	}
}

// shown is a version as logged: "" is a build that records none.
func shown(version string) string {
	if version == "" {
		return "unknown (a build older than the version check)"
	}
	return version
}

// meetNodes meets the nodes that joined since, every TTL until ctx ends.
func (n *Node) meetNodes(ctx context.Context) {
	t := time.NewTicker(n.ttl)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			n.meet(ctx)
		}
	}
}
