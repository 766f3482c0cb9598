package store

import (
	"context"

	"github.com/sweatpants-go/sweatpants/internal/apperr"
	"github.com/sweatpants-go/sweatpants/internal/tree"
)

// appendChainSQL hangs a chain of nodes from HEAD and moves HEAD to its
// last node in one statement, on PostgreSQL: the answer path's write (an
// answer and the turn's next record) is then one round trip to the server,
// where a transaction of an INSERT a node and an UPDATE of HEAD took five
// (BEGIN, the inserts, the update, COMMIT), each a wake-up of another
// process on the same cores.
//
// The ids are drawn from the nodes' sequence first (nodes_id_seq, the
// identity of nodes.id), in the chain's order, so that each node can name
// the one before as its parent and the last one can be HEAD before any row
// is written. HEAD moves only where it is still the chain's parent ($2),
// and the nodes and the reflog's entry are written only if it moved: a
// writer that had HEAD wrong writes nothing, as in a transaction rolled
// back. updated_at is written only when it is due ($9), else left as it
// is, which keeps the update off its index.
//
// The chain's positions are counted from a series of constant length
// (pgChainMax), not one as long as the chain: the planner then estimates
// the statement alike whatever its arguments, and after its first few runs
// on a connection keeps one plan for it, where a series of the chain's
// length had it planned anew on every run (a quarter to half a
// millisecond of the server's CPU each time; five times the execution).
//
// Parameters: $1 the conversation, $2 the chain's parent (HEAD), $3 the
// nodes' time, $4–$7 the nodes' kinds, refs, agents and payloads, $8 now,
// $9 whether updated_at is due, $10 and $11 the reflog entry's action and
// detail (NULL for none). It returns whether HEAD moved with each id, in
// the chain's order.
const appendChainSQL = `WITH ids AS MATERIALIZED (
	SELECT nextval('nodes_id_seq') AS id, o
	FROM generate_series(1, ` + pgChainMaxSQL + `) o WHERE o <= cardinality($4::text[])
), moved AS (
	UPDATE conversations
	SET head = (SELECT max(id) FROM ids),
	    updated_at = CASE WHEN $9::boolean THEN $8::bigint ELSE updated_at END
	WHERE id = $1::text AND head = $2::bigint
	RETURNING 1
), added AS (
	INSERT INTO nodes(id, conversation_id, parent_id, kind, ref, agent, payload, created_at)
	SELECT i.id, $1::text, COALESCE((SELECT p.id FROM ids p WHERE p.o = i.o - 1), $2::bigint),
	       ($4::text[])[i.o], ($5::text[])[i.o], ($6::text[])[i.o], ($7::bytea[])[i.o], $3::bigint
	FROM ids i WHERE EXISTS (SELECT 1 FROM moved)
), logged AS (
	INSERT INTO reflog(conversation_id, head, prev, action, detail, created_at)
	SELECT $1::text, max(id), $2::bigint, $10::text, $11::text, $8::bigint FROM ids
	HAVING $10::text IS NOT NULL AND EXISTS (SELECT 1 FROM moved)
)
SELECT EXISTS (SELECT 1 FROM moved), id FROM ids ORDER BY o`

// pgChainMax is the longest chain appendChainSQL writes, pgChainMaxSQL
// its spelling in the statement; a longer chain is written by a
// transaction of a statement a node.
const (
	pgChainMax    = 64
	pgChainMaxSQL = "64"
)

// appendChainAlone records nodes as a chain hung from HEAD, the first
// node's Parent, moves HEAD to the last and, with log, records the move in
// the reflog: Append and AppendChain on PostgreSQL, in one statement
// (appendChainSQL) committed on its own. It sets the nodes' ids and
// parents. HEAD not at the first node's Parent is Conflict, with nothing
// written.
func (db *DB) appendChainAlone(ctx context.Context, nodes []tree.Node, log *tree.Move) error {
	c, prev := nodes[0].Conversation, nodes[0].Parent
	kinds := make([]string, len(nodes))
	refs := make([]*string, len(nodes))
	agents := make([]string, len(nodes))
	payloads := make([][]byte, len(nodes))
	for i, n := range nodes {
		kinds[i], agents[i], payloads[i] = string(n.Kind), n.Agent, []byte(n.Payload)
		if n.Ref != "" {
			refs[i] = &nodes[i].Ref
		}
	}
	var action, detail *string
	if log != nil {
		a := string(log.Action)
		action, detail = &a, &log.Detail
	}
	now := db.now().UnixMilli()
	due := db.recent.due(c, now)
	ids := make([]int64, 0, len(nodes))
	err := db.autocommit(ctx, func(ctx context.Context) error {
		ids = ids[:0]
		rows, err := db.write.QueryContext(ctx, appendChainSQL,
			c, prev, nodes[0].At.UnixMilli(), kinds, refs, agents, payloads, now, due, action, detail)
		if err != nil {
			return err
		}
		defer rows.Close()
		moved := false
		for rows.Next() {
			var id int64
			if err := rows.Scan(&moved, &id); err != nil {
				return err
			}
			ids = append(ids, id)
		}
		if err := rows.Err(); err != nil {
			return err
		}
		if !moved {
			return apperr.Errorf(apperr.Conflict, "The conversation moved on meanwhile: its HEAD is no longer node %d. Reload to see where it is.", prev)
		}
		return nil
	})
	if err != nil {
		return err
	}
	for i := range nodes {
		nodes[i].ID = ids[i]
		if i > 0 {
			nodes[i].Parent = ids[i-1]
		}
	}
	return nil
}
