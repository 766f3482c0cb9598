package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// SaveMCPSession records that the MCP session id began, with init, what
// the server keeps of it (internal/mcp's record: its client's initialize
// params and the conversation of its calls, as JSON).
func (db *DB) SaveMCPSession(ctx context.Context, id string, init []byte) error {
	err := db.tx(ctx, func(ctx context.Context, tx *txn) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO mcp_sessions(id, init, seen_at) VALUES (?, ?, ?)
			ON CONFLICT(id) DO UPDATE SET init = excluded.init, seen_at = excluded.seen_at`, id, init, db.now().UnixMilli())
		return err
	})
	if err != nil {
		return fmt.Errorf("record MCP session: %w", err)
	}
	return nil
}

// MCPSession returns what the client of the MCP session id said of itself
// when it began, and false for a session not recorded (or forgotten).
func (db *DB) MCPSession(ctx context.Context, id string) ([]byte, bool, error) {
	var init []byte
	err := db.read.QueryRowContext(ctx, `SELECT init FROM mcp_sessions WHERE id = ?`, id).Scan(&init)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return nil, false, nil
	case err != nil:
		return nil, false, fmt.Errorf("read MCP session: %w", err)
	}
	return init, true, nil
}

// ForgetMCPSessions forgets the session id (a closed session), or, with id
// "", every session not begun again since before (clients gone away).
func (db *DB) ForgetMCPSessions(ctx context.Context, id string, before time.Time) error {
	err := db.tx(ctx, func(ctx context.Context, tx *txn) error {
		if id != "" {
			_, err := tx.ExecContext(ctx, `DELETE FROM mcp_sessions WHERE id = ?`, id)
			return err
		}
		_, err := tx.ExecContext(ctx, `DELETE FROM mcp_sessions WHERE seen_at < ?`, before.UnixMilli())
		return err
	})
	if err != nil {
		return fmt.Errorf("forget MCP sessions: %w", err)
	}
	return nil
}
