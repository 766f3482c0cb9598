package store

import (
	"context"
	"crypto/subtle"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/sweatpants-go/sweatpants/internal/apperr"
	"github.com/sweatpants-go/sweatpants/internal/share"
)

// Share is a read-only link to a conversation's branch (share.Link).
type Share = share.Link

// CreateShare records a share of conversation's branch up to node, under
// title (the conversation's as it is now), found
// by tokenHash (the hex SHA-256 of its token), that expires after ttl. A
// node the conversation does not have is Invalid, and nothing is
// recorded. The caller checks that the conversation is the user's.
func (db *DB) CreateShare(ctx context.Context, conversation string, node int64, title, tokenHash string, ttl time.Duration) (Share, error) {
	now := db.now()
	sh := Share{Conversation: conversation, Node: node, Title: title, Created: time.UnixMilli(now.UnixMilli()), Expires: time.UnixMilli(now.Add(ttl).UnixMilli())}
	err := db.tx(ctx, func(ctx context.Context, tx *txn) error {
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM nodes WHERE id = ? AND conversation_id = ?`, node, conversation).Scan(&n); err != nil {
			return fmt.Errorf("create share: %w", err)
		}
		if n == 0 {
			return apperr.Errorf(apperr.Invalid, "The conversation has no node %d to share.", node)
		}
		// Shares past their expiry are gone: the next share cleans them up.
		if _, err := tx.ExecContext(ctx, `DELETE FROM shares WHERE conversation_id = ? AND expires_at <= ?`, conversation, now.UnixMilli()); err != nil {
			return fmt.Errorf("create share: %w", err)
		}
		if err := tx.QueryRowContext(ctx, `INSERT INTO shares(token_hash, conversation_id, node, title, created_at, expires_at)
			VALUES (?, ?, ?, ?, ?, ?) RETURNING id`, tokenHash, conversation, node, title, sh.Created.UnixMilli(), sh.Expires.UnixMilli()).Scan(&sh.ID); err != nil {
			return fmt.Errorf("create share: %w", err)
		}
		return nil
	})
	if err != nil {
		return Share{}, err
	}
	return sh, nil
}

const shareCols = `id, conversation_id, node, title, created_at, expires_at`

func scanShare(row interface{ Scan(...any) error }, extra ...any) (Share, error) {
	var sh Share
	var created, expires int64
	err := row.Scan(append([]any{&sh.ID, &sh.Conversation, &sh.Node, &sh.Title, &created, &expires}, extra...)...)
	sh.Created, sh.Expires = time.UnixMilli(created), time.UnixMilli(expires)
	return sh, err
}

// Shares lists the conversation's shares that have not expired, newest
// first. The caller checks that the conversation is the user's.
func (db *DB) Shares(ctx context.Context, conversation string) ([]Share, error) {
	rows, err := db.read.QueryContext(ctx, `SELECT `+shareCols+` FROM shares
		WHERE conversation_id = ? AND expires_at > ? ORDER BY id DESC`, conversation, db.now().UnixMilli())
	if err != nil {
		return nil, fmt.Errorf("list shares: %w", err)
	}
	defer rows.Close()
	var out []Share
	for rows.Next() {
		sh, err := scanShare(rows)
		if err != nil {
			return nil, fmt.Errorf("list shares: %w", err)
		}
		out = append(out, sh)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list shares: %w", err)
	}
	return out, nil
}

// RevokeShare deletes the conversation's share id: its link is gone. A
// share of another conversation, or one that no longer exists, is
// NotFound.
func (db *DB) RevokeShare(ctx context.Context, conversation string, id int64) error {
	return db.tx(ctx, func(ctx context.Context, tx *txn) error {
		res, err := tx.ExecContext(ctx, `DELETE FROM shares WHERE id = ? AND conversation_id = ?`, id, conversation)
		if err != nil {
			return fmt.Errorf("revoke share: %w", err)
		}
		if n, err := res.RowsAffected(); err != nil {
			return fmt.Errorf("revoke share: %w", err)
		} else if n == 0 {
			return apperr.Errorf(apperr.NotFound, "There is no share %d.", id)
		}
		return nil
	})
}

// ShareByToken returns the share whose token hashes to tokenHash, if it
// has not expired. One that never existed, was revoked or has expired is
// NotFound, all alike.
func (db *DB) ShareByToken(ctx context.Context, tokenHash string) (Share, error) {
	var stored string
	sh, err := scanShare(db.read.QueryRowContext(ctx, `SELECT `+shareCols+`, token_hash FROM shares
		WHERE token_hash = ? AND expires_at > ?`, tokenHash, db.now().UnixMilli()), &stored)
	// The row was found by its hash; the hashes are compared again in
	// constant time, so that no answer depends on how much of one matched.
	if errors.Is(err, sql.ErrNoRows) || (err == nil && subtle.ConstantTimeCompare([]byte(stored), []byte(tokenHash)) != 1) {
		return Share{}, apperr.Errorf(apperr.NotFound, "There is no such shared link: it never existed, was revoked or has expired.")
	}
	if err != nil {
		return Share{}, fmt.Errorf("read share: %w", err)
	}
	return sh, nil
}
