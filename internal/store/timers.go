package store

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/sweatpants-go/sweatpants/internal/timers"
)

// SetTimer records t, replacing the conversation's timer of t.Key; a claim
// on it goes when its time changes. (Set again for the same time, as a
// conversation loaded to fire it sets it, the claim stays.)
func (db *DB) SetTimer(ctx context.Context, t timers.Timer) error {
	return db.tx(ctx, func(ctx context.Context, tx *txn) error {
		_, err := tx.StmtContext(ctx, db.stmts.setTimer).ExecContext(ctx, t.Conversation, t.Key, t.Owner, t.Due.UnixMilli())
		if err != nil {
			return fmt.Errorf("set timer: %w", err)
		}
		return nil
	})
}

// setTimerSQL records a timer (SetTimer), prepared once (stmts): a firing
// sets and clears timers several times.
const setTimerSQL = `INSERT INTO timers(conversation_id, key, owner, due_at, claimed_until) VALUES (?, ?, ?, ?, 0)
	ON CONFLICT (conversation_id, key) DO UPDATE SET owner = excluded.owner, due_at = excluded.due_at,
		claimed_until = CASE WHEN timers.due_at = excluded.due_at THEN timers.claimed_until ELSE 0 END`

// ClearTimer forgets the conversation's timer of key, if any.
func (db *DB) ClearTimer(ctx context.Context, conversation, key string) error {
	return db.tx(ctx, func(ctx context.Context, tx *txn) error {
		if _, err := tx.StmtContext(ctx, db.stmts.clearTimer).ExecContext(ctx, conversation, key); err != nil {
			return fmt.Errorf("clear timer: %w", err)
		}
		return nil
	})
}

// ClaimDue claims up to limit timers due at now that no claim holds, until
// now+hold, and returns them, earliest first. A timer whose claim lapsed
// (its node died firing it) is claimed again.
func (db *DB) ClaimDue(ctx context.Context, now time.Time, hold time.Duration, limit int) ([]timers.Timer, error) {
	// Every node looks each second: with nothing due, a read answers it,
	// and no write transaction is taken.
	var due int
	err := db.read.QueryRowContext(ctx, `SELECT COUNT(*) FROM (SELECT 1 FROM timers WHERE due_at <= ? AND claimed_until <= ? LIMIT 1) AS d`,
		now.UnixMilli(), now.UnixMilli()).Scan(&due)
	if err != nil {
		return nil, fmt.Errorf("look for due timers: %w", err)
	}
	if due == 0 {
		return nil, nil
	}
	var out []timers.Timer
	err = db.tx(ctx, func(ctx context.Context, tx *txn) error {
		out = out[:0]
		ms := now.UnixMilli()
		// The outer claimed_until test is read again by PostgreSQL on a
		// row another node claimed meanwhile, which then stays its.
		rows, err := tx.QueryContext(ctx, `UPDATE timers SET claimed_until = ?
			WHERE claimed_until <= ? AND (conversation_id, key) IN (
				SELECT conversation_id, key FROM timers WHERE due_at <= ? AND claimed_until <= ? ORDER BY due_at LIMIT ?)
			RETURNING conversation_id, key, owner, due_at`, now.Add(hold).UnixMilli(), ms, ms, ms, limit)
		if err != nil {
			return fmt.Errorf("claim due timers: %w", err)
		}
		defer rows.Close()
		for rows.Next() {
			var t timers.Timer
			var due int64
			if err := rows.Scan(&t.Conversation, &t.Key, &t.Owner, &due); err != nil {
				return fmt.Errorf("claim due timers: %w", err)
			}
			t.Due = time.UnixMilli(due)
			out = append(out, t)
		}
		return rows.Err()
	})
	if err != nil {
		return nil, err
	}
	sortTimers(out)
	return out, nil
}

// NextDue returns the earliest moment a timer may be claimed: when it is
// due, or when another node's claim on it lapses. It reads in two steps
// that an index serves, for a clock asks before each wait: the earliest
// unclaimed timer (by due_at), then the claims of those due before it,
// which are the timers being fired or left to be tried again — a few. (A
// timer due later than the earliest unclaimed one cannot come sooner.)
func (db *DB) NextDue(ctx context.Context) (time.Time, bool, error) {
	var free int64
	err := db.read.QueryRowContext(ctx, `SELECT due_at FROM timers WHERE claimed_until <= due_at ORDER BY due_at LIMIT 1`).Scan(&free)
	found := err == nil
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return time.Time{}, false, fmt.Errorf("read the next timer: %w", err)
	}
	var claimed sql.NullInt64
	q, args := `SELECT MIN(claimed_until) FROM timers`, []any{}
	if found {
		q, args = q+` WHERE due_at < ?`, append(args, free)
	}
	if err := db.read.QueryRowContext(ctx, q, args...).Scan(&claimed); err != nil {
		return time.Time{}, false, fmt.Errorf("read the next timer: %w", err)
	}
	switch {
	case claimed.Valid && (!found || claimed.Int64 < free):
		return time.UnixMilli(claimed.Int64), true, nil
	case found:
		return time.UnixMilli(free), true, nil
	}
	return time.Time{}, false, nil
}

// TimersOf lists the conversation's timers, earliest first.
func (db *DB) TimersOf(ctx context.Context, conversation string) ([]timers.Timer, error) {
	rows, err := db.read.QueryContext(ctx, `SELECT conversation_id, key, owner, due_at FROM timers WHERE conversation_id = ? ORDER BY due_at, key`, conversation)
	if err != nil {
		return nil, fmt.Errorf("list timers: %w", err)
	}
	defer rows.Close()
	var out []timers.Timer
	for rows.Next() {
		var t timers.Timer
		var due int64
		if err := rows.Scan(&t.Conversation, &t.Key, &t.Owner, &due); err != nil {
			return nil, fmt.Errorf("list timers: %w", err)
		}
		t.Due = time.UnixMilli(due)
		out = append(out, t)
	}
	return out, rows.Err()
}

func sortTimers(ts []timers.Timer) {
	slices.SortFunc(ts, func(a, b timers.Timer) int {
		return cmp.Or(a.Due.Compare(b.Due), cmp.Compare(a.Conversation, b.Conversation), cmp.Compare(a.Key, b.Key))
	})
}
