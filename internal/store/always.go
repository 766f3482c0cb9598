package store

import (
	"context"
	"fmt"
	"time"

	"github.com/sweatpants-go/sweatpants/internal/always"
	"github.com/sweatpants-go/sweatpants/internal/apperr"
)

// AlwaysRule is a tool a session's user allowed always (always.Rule).
type AlwaysRule = always.Rule

// AlwaysAllowed lists the session's always rules, oldest first.
func (db *DB) AlwaysAllowed(ctx context.Context, session string) ([]AlwaysRule, error) {
	rows, err := db.read.QueryContext(ctx, `SELECT id, agent, tool, created_at FROM always_rules WHERE session_id = ? ORDER BY id`, session)
	if err != nil {
		return nil, fmt.Errorf("list always rules: %w", err)
	}
	defer rows.Close()
	var out []AlwaysRule
	for rows.Next() {
		r := AlwaysRule{Session: session}
		var created int64
		if err := rows.Scan(&r.ID, &r.Agent, &r.Tool, &created); err != nil {
			return nil, fmt.Errorf("list always rules: %w", err)
		}
		r.Created = time.UnixMilli(created)
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list always rules: %w", err)
	}
	return out, nil
}

// AllowAlways records that the session's user always allows agent's tool,
// and returns the rule. A tool allowed already keeps its rule, which is
// returned: an approval answered twice (a crash took the first answer
// back before it was written) makes one rule.
func (db *DB) AllowAlways(ctx context.Context, session, agent, tool string) (AlwaysRule, error) {
	r := AlwaysRule{Session: session, Agent: agent, Tool: tool}
	err := db.tx(ctx, func(ctx context.Context, tx *txn) error {
		if _, err := tx.ExecContext(ctx, `INSERT INTO always_rules(session_id, agent, tool, created_at) VALUES (?, ?, ?, ?)
			ON CONFLICT (session_id, agent, tool) DO NOTHING`, session, agent, tool, db.now().UnixMilli()); err != nil {
			return err
		}
		var created int64
		if err := tx.QueryRowContext(ctx, `SELECT id, created_at FROM always_rules WHERE session_id = ? AND agent = ? AND tool = ?`,
			session, agent, tool).Scan(&r.ID, &created); err != nil {
			return err
		}
		r.Created = time.UnixMilli(created)
		return nil
	})
	if err != nil {
		return AlwaysRule{}, fmt.Errorf("allow always: %w", err)
	}
	return r, nil
}

// RevokeAlways deletes the session's always rule id: its tool asks again.
// A rule that is not the session's, or no longer exists, is NotFound.
func (db *DB) RevokeAlways(ctx context.Context, session string, id int64) error {
	return db.tx(ctx, func(ctx context.Context, tx *txn) error {
		res, err := tx.ExecContext(ctx, `DELETE FROM always_rules WHERE id = ? AND session_id = ?`, id, session)
		if err != nil {
			return fmt.Errorf("revoke always rule: %w", err)
		}
		if n, err := res.RowsAffected(); err != nil {
			return fmt.Errorf("revoke always rule: %w", err)
		} else if n == 0 {
			return apperr.Errorf(apperr.NotFound, "There is no always-allow rule %d.", id)
		}
		return nil
	})
}
