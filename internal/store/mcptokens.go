package store

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"time"
)

// MCPToken is a personal MCP token as its owner sees it listed: never the
// token itself, which is shown once, when made.
type MCPToken struct {
	ID      string
	Label   string
	Created time.Time
	// LastUsed is when a request to /mcp last carried it, to the minute;
	// zero when none has.
	LastUsed time.Time
}

// mcpTokenPrefix begins every personal MCP token, so that one pasted in
// the wrong place is recognised for what it is.
const mcpTokenPrefix = "spmcp_"

// lastUsedEvery is how stale a token's LastUsed may get: a request to /mcp
// writes it only when it is older, not at every request.
const lastUsedEvery = time.Minute

// hashToken is what the database keeps of a token: its SHA-256, in hex.
func hashToken(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}

// MakeMCPToken makes a personal MCP token of account, labelled label, and
// returns it as listed and the token itself, which is kept nowhere else.
func (db *DB) MakeMCPToken(ctx context.Context, account, label string) (MCPToken, string, error) {
	secret := make([]byte, 32)
	rand.Read(secret)
	token := mcpTokenPrefix + hex.EncodeToString(secret)
	id := make([]byte, 8)
	rand.Read(id)
	t := MCPToken{ID: hex.EncodeToString(id), Label: label, Created: time.UnixMilli(db.now().UnixMilli())}
	err := db.tx(ctx, func(ctx context.Context, tx *txn) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO mcp_tokens(id, account_id, hash, label, created_at) VALUES (?, ?, ?, ?, ?)`,
			t.ID, account, hashToken(token), label, t.Created.UnixMilli())
		return err
	})
	if err != nil {
		return MCPToken{}, "", fmt.Errorf("make an MCP token: %w", err)
	}
	return t, token, nil
}

// MCPTokens lists account's personal MCP tokens, newest first.
func (db *DB) MCPTokens(ctx context.Context, account string) ([]MCPToken, error) {
	rows, err := db.read.QueryContext(ctx, `SELECT id, label, created_at, last_used_at FROM mcp_tokens WHERE account_id = ? ORDER BY created_at DESC, id`, account)
	if err != nil {
		return nil, fmt.Errorf("list the MCP tokens: %w", err)
	}
	defer rows.Close()
	var out []MCPToken
	for rows.Next() {
		var t MCPToken
		var created int64
		var used sql.NullInt64
		if err := rows.Scan(&t.ID, &t.Label, &created, &used); err != nil {
			return nil, fmt.Errorf("list the MCP tokens: %w", err)
		}
		t.Created = time.UnixMilli(created)
		if used.Valid {
			t.LastUsed = time.UnixMilli(used.Int64)
		}
		out = append(out, t)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list the MCP tokens: %w", err)
	}
	return out, nil
}

// RevokeMCPToken deletes account's token id: a request carrying it is
// refused from then on, on every node (MCPTokenAccount reads the table
// each time). ok is false when account has no such token.
func (db *DB) RevokeMCPToken(ctx context.Context, account, id string) (ok bool, err error) {
	err = db.tx(ctx, func(ctx context.Context, tx *txn) error {
		res, err := tx.ExecContext(ctx, `DELETE FROM mcp_tokens WHERE id = ? AND account_id = ?`, id, account)
		if err != nil {
			return err
		}
		n, err := res.RowsAffected()
		ok = n > 0
		return err
	})
	if err != nil {
		return false, fmt.Errorf("revoke the MCP token: %w", err)
	}
	return ok, nil
}

// MCPTokenAccount returns the account whose personal MCP token token is;
// ok is false for a token never made, revoked, or of a disabled account.
// It is read at every request, so a revocation takes effect at once. The
// token's LastUsed is brought up to date when it is older than a minute.
func (db *DB) MCPTokenAccount(ctx context.Context, token string) (account string, ok bool, err error) {
	var id string
	var used sql.NullInt64
	err = db.read.QueryRowContext(ctx, `SELECT t.id, t.account_id, t.last_used_at FROM mcp_tokens t JOIN accounts a ON a.id = t.account_id
		WHERE t.hash = ? AND a.disabled_at IS NULL`, hashToken(token)).Scan(&id, &account, &used)
	if errors.Is(err, sql.ErrNoRows) {
		return "", false, nil
	}
	if err != nil {
		return "", false, fmt.Errorf("read the MCP token: %w", err)
	}
	now := db.now()
	if !used.Valid || now.Sub(time.UnixMilli(used.Int64)) >= lastUsedEvery {
		err := db.tx(ctx, func(ctx context.Context, tx *txn) error {
			_, err := tx.ExecContext(ctx, `UPDATE mcp_tokens SET last_used_at = ? WHERE id = ?`, now.UnixMilli(), id)
			return err
		})
		if err != nil {
			return "", false, fmt.Errorf("note the MCP token's use: %w", err)
		}
	}
	return account, true, nil
}
