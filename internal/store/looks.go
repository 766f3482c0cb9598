package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/sweatpants-go/sweatpants/internal/apperr"
)

// Look is an operator reading what is not theirs, read-only: who looked
// (the operator's account and email), at whose conversation (none for the
// tool audit of an account), at what ("page", "tree", "calls", "audit",
// "file" or "export"), and when.
type Look struct {
	OperatorID, OperatorEmail string
	Conversation, Owner       string
	What                      string
	At                        time.Time
}

// RecordLook records the look l, at the store's clock (l.At is ignored).
func (db *DB) RecordLook(ctx context.Context, l Look) error {
	return db.tx(ctx, func(ctx context.Context, tx *txn) error {
		if _, err := tx.ExecContext(ctx, `INSERT INTO looks(operator_id, operator_email, conversation_id, owner_id, what, at)
			VALUES (?, ?, ?, ?, ?, ?)`, l.OperatorID, l.OperatorEmail, l.Conversation, l.Owner, l.What, db.now().UnixMilli()); err != nil {
			return fmt.Errorf("record the look: %w", err)
		}
		return nil
	})
}

// Looks lists the latest looks, newest first, at most limit of them.
func (db *DB) Looks(ctx context.Context, limit int) ([]Look, error) {
	rows, err := db.read.QueryContext(ctx, `SELECT operator_id, operator_email, conversation_id, owner_id, what, at
		FROM looks ORDER BY at DESC, id DESC LIMIT ?`, limit)
	if err != nil {
		return nil, fmt.Errorf("list the looks: %w", err)
	}
	defer rows.Close()
	var out []Look
	for rows.Next() {
		var l Look
		var at int64
		if err := rows.Scan(&l.OperatorID, &l.OperatorEmail, &l.Conversation, &l.Owner, &l.What, &at); err != nil {
			return nil, fmt.Errorf("list the looks: %w", err)
		}
		l.At = time.UnixMilli(at)
		out = append(out, l)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list the looks: %w", err)
	}
	return out, nil
}

// ConversationOwner returns the owner key (the session, or the account)
// of the conversation id; one that does not exist is NotFound.
func (db *DB) ConversationOwner(ctx context.Context, id string) (string, error) {
	return db.ownerOf(ctx, `SELECT session_id FROM conversations WHERE id = ?`, id, "There is no conversation %s.")
}

// UploadOwner returns the owner key of the uploaded file id; one that does
// not exist is NotFound.
func (db *DB) UploadOwner(ctx context.Context, id string) (string, error) {
	return db.ownerOf(ctx, `SELECT session_id FROM uploads WHERE id = ?`, id, "There is no file %s.")
}

// AccountExists reports whether id is an account's (disabled or not).
func (db *DB) AccountExists(ctx context.Context, id string) (bool, error) {
	_, err := db.ownerOf(ctx, `SELECT id FROM accounts WHERE id = ?`, id, "There is no account %s.")
	if apperr.CodeOf(err) == apperr.NotFound {
		return false, nil
	}
	return err == nil, err
}

func (db *DB) ownerOf(ctx context.Context, query, id, missing string) (string, error) {
	var owner string
	err := db.read.QueryRowContext(ctx, query, id).Scan(&owner)
	if errors.Is(err, sql.ErrNoRows) {
		return "", apperr.Errorf(apperr.NotFound, missing, id)
	}
	if err != nil {
		return "", fmt.Errorf("find the owner: %w", err)
	}
	return owner, nil
}
