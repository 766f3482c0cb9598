package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// PinSession records the session id, pinned: RotateSession keeps it as it
// is, its conversations with it. It is for a session the program itself
// owns conversations in (those of MCP calls), which a browser may be handed
// to look at them; its id is a secret the program keeps.
func (db *DB) PinSession(ctx context.Context, id string) error {
	return db.tx(ctx, func(ctx context.Context, tx *txn) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO sessions(id, created_at, pinned) VALUES (?, ?, 1)
			ON CONFLICT(id) DO UPDATE SET pinned = 1`, id, db.now().UnixMilli())
		return err
	})
}

// EnsureSession records a browser session id if it is new.
func (db *DB) EnsureSession(ctx context.Context, id string) error {
	return db.tx(ctx, func(ctx context.Context, tx *txn) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO sessions(id, created_at) VALUES (?, ?) ON CONFLICT DO NOTHING`,
			id, db.now().UnixMilli())
		return err
	})
}

// Session returns the session that holds id's conversations now: id itself
// when it is a recorded session that was not rotated; its successor when it
// was rotated less than within ago for the same client (following a chain
// of such rotations); "" when id was never recorded, or rotated longer ago
// or for another client.
//
// An id found live is remembered on SQLite (see liveSessions), so that the
// read each request makes of its session is a lookup once it is known.
func (db *DB) Session(ctx context.Context, id, client string, within time.Duration) (string, error) {
	known, gen := db.live.known(id)
	if known {
		return id, nil
	}
	got, err := db.liveSession(ctx, db.read, id, client, within)
	if err == nil && id != "" && got == id {
		db.live.remember(id, gen)
	}
	return got, err
}

// maxHandoffs bounds the chain of rotations Session follows; a browser
// rotates once per conversation it starts, so a handoff window holds few.
const maxHandoffs = 8

type queryRower interface {
	QueryRowContext(ctx context.Context, query string, args ...any) row
}

func (db *DB) liveSession(ctx context.Context, q queryRower, id, client string, within time.Duration) (string, error) {
	since := db.now().Add(-within).UnixMilli()
	for range maxHandoffs {
		if id == "" {
			return "", nil
		}
		var successor, rotatedFor sql.NullString
		var at sql.NullInt64
		err := q.QueryRowContext(ctx, `SELECT successor, rotated_at, rotated_for FROM sessions WHERE id = ?`, id).
			Scan(&successor, &at, &rotatedFor)
		if errors.Is(err, sql.ErrNoRows) {
			return "", nil
		}
		if err != nil {
			return "", fmt.Errorf("read session: %w", err)
		}
		if !successor.Valid {
			return id, nil
		}
		if at.Int64 < since || rotatedFor.String != client {
			return "", nil
		}
		id = successor.String
	}
	return "", nil
}

// RotateSession moves the conversations of the browser that sent prev to a
// session of its own and returns that session's id:
//   - prev is a recorded session that was not rotated: next is recorded and
//     takes prev's conversations and always rules over; prev leads to next
//     (see Session) for
//     within, for client only, and to nothing after that.
//   - prev was rotated less than within ago for client: the request was sent
//     before the browser heard of the rotation (a double-click, a second
//     tab), so it gets the session prev leads to, and next is not recorded.
//     Rotating again would hand the browser two ids at once, and whichever
//     cookie it kept last would strand the other's conversations.
//   - prev is pinned (PinSession): prev is returned as it is, and next is
//     not recorded.
//   - otherwise (empty, never issued, rotated for someone else or long ago):
//     next is recorded and owns nothing.
//
// Rotations older than within are forgotten here.
func (db *DB) RotateSession(ctx context.Context, prev, next, client string, within time.Duration) (string, error) {
	// Once the rotation is committed (or failed), Session reads prev again.
	defer db.live.forget(prev)
	got := next
	err := db.tx(ctx, func(ctx context.Context, tx *txn) error {
		// Whether prev was rotated already is read, then decided: nodes
		// rotating it at once take turns, and agree on one successor.
		if err := tx.serialize(ctx, "session:"+prev); err != nil {
			return err
		}
		now := db.now()
		if _, err := tx.ExecContext(ctx, `DELETE FROM sessions WHERE successor IS NOT NULL AND rotated_at < ?`,
			now.Add(-within).UnixMilli()); err != nil {
			return fmt.Errorf("forget old rotations: %w", err)
		}
		live, err := db.liveSession(ctx, tx, prev, client, within)
		if err != nil {
			return err
		}
		if live != "" && live != prev {
			got = live
			return nil
		}
		var pinned bool
		if live != "" && live == prev {
			if err := tx.QueryRowContext(ctx, `SELECT pinned FROM sessions WHERE id = ?`, prev).Scan(&pinned); err != nil {
				return fmt.Errorf("read session: %w", err)
			}
		}
		if pinned {
			got = prev
			return nil
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO sessions(id, created_at) VALUES (?, ?)`, next, now.UnixMilli()); err != nil {
			return fmt.Errorf("record session: %w", err)
		}
		if live == "" {
			return nil
		}
		if _, err := tx.ExecContext(ctx, `UPDATE conversations SET session_id = ? WHERE session_id = ?`, next, prev); err != nil {
			return fmt.Errorf("move conversations to the new session: %w", err)
		}
		// The user's always rules are theirs as the conversations are.
		if _, err := tx.ExecContext(ctx, `UPDATE always_rules SET session_id = ? WHERE session_id = ?`, next, prev); err != nil {
			return fmt.Errorf("move always rules to the new session: %w", err)
		}
		// So are the files they sent, attached or about to be.
		if _, err := tx.ExecContext(ctx, `UPDATE uploads SET session_id = ? WHERE session_id = ?`, next, prev); err != nil {
			return fmt.Errorf("move files to the new session: %w", err)
		}
		_, err = tx.ExecContext(ctx, `UPDATE sessions SET successor = ?, rotated_at = ?, rotated_for = ? WHERE id = ?`,
			next, now.UnixMilli(), client, prev)
		return err
	})
	if err != nil {
		return "", err
	}
	return got, nil
}
