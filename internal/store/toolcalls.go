package store

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/sweatpants-go/sweatpants/internal/tree"
)

// ToolCalls returns the tool call nodes of a session's conversations,
// newest first, at most limit of them (every one for limit 0): the audit
// trail a session reads. Only the session's own conversations are read.
// tool, decision and outcome, each when not empty, keep the calls of that
// tool, that decision (tree.ToolRecord.Decision) and that outcome; a call
// recorded before the permission policy has no decision, and its outcome
// is read from whether it failed.
func (db *DB) ToolCalls(ctx context.Context, session, tool, decision, outcome string, limit int) ([]tree.Node, error) {
	if limit <= 0 {
		limit = math.MaxInt64 // no limit, in words both engines take
	}
	// The payload is JSON kept as bytes; the JSON functions read it as a
	// document (engine.jsonDoc).
	field := func(key string) string { return db.eng.jsonText("p", key) }
	rows, err := db.read.QueryContext(ctx, `
		WITH calls AS (
			SELECT n.id, n.conversation_id, n.parent_id, n.kind, COALESCE(n.ref, '') AS ref, n.agent, n.payload, n.created_at,
				`+db.eng.jsonDoc("n.payload")+` AS p
			FROM nodes n JOIN conversations c ON c.id = n.conversation_id
			WHERE c.session_id = ? AND n.kind = ?
		)
		SELECT id, conversation_id, parent_id, kind, ref, agent, payload, created_at FROM calls
		WHERE (? = '' OR `+field("tool")+` = ?)
		  AND (? = '' OR `+field("decision")+` = ?)
		  AND (? = '' OR COALESCE(`+field("outcome")+`,
		                          CASE WHEN `+field("error")+` IS NULL THEN 'ok' ELSE 'error' END) = ?)
		ORDER BY id DESC
		LIMIT ?`,
		session, string(tree.ToolCall), tool, tool, decision, decision, outcome, outcome, limit)
	if err != nil {
		return nil, fmt.Errorf("read tool calls: %w", err)
	}
	defer rows.Close()
	var out []tree.Node
	for rows.Next() {
		var n tree.Node
		var kind string
		var at int64
		if err := rows.Scan(&n.ID, &n.Conversation, &n.Parent, &kind, &n.Ref, &n.Agent, &n.Payload, &at); err != nil {
			return nil, fmt.Errorf("read tool calls: %w", err)
		}
		n.Kind, n.At = tree.Kind(kind), time.UnixMilli(at)
		out = append(out, n)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read tool calls: %w", err)
	}
	return out, nil
}
