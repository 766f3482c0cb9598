package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/sweatpants-go/sweatpants/internal/apperr"
	"github.com/sweatpants-go/sweatpants/internal/schedule"
	"github.com/sweatpants-go/sweatpants/internal/timers"
)

// The schedules of conversations (package schedule). A schedule's row is
// kept once it ends (cancelled_at set, by a cancel or its last
// occurrence), so that a turn replayed after it ended does not make it
// again; it goes with its conversation.

const scheduleCols = `id, conversation_id, owner, message, every_ms, cron, next_at, created_at, cancelled_at`

// schedulesOfSQL lists a conversation's active schedules (SchedulesOf).
const schedulesOfSQL = `SELECT ` + scheduleCols + ` FROM schedules WHERE conversation_id = ? AND cancelled_at IS NULL ORDER BY next_at, id`

func scanSchedule(row interface{ Scan(...any) error }) (schedule.Schedule, bool, error) {
	var s schedule.Schedule
	var every, next, created int64
	var cancelled sql.NullInt64
	if err := row.Scan(&s.ID, &s.Conversation, &s.Owner, &s.Message, &every, &s.Cron, &next, &created, &cancelled); err != nil {
		return schedule.Schedule{}, false, err
	}
	s.Every = time.Duration(every) * time.Millisecond
	s.Next, s.Created = time.UnixMilli(next).UTC(), time.UnixMilli(created).UTC()
	return s, cancelled.Valid, nil
}

// AddSchedule records s with the timer of its next occurrence, unless a
// schedule of s.ID is recorded already, which it returns. Errors:
// NotFound for no conversation s.Conversation, Conflict when it has limit
// active schedules already.
func (db *DB) AddSchedule(ctx context.Context, s schedule.Schedule, limit int) (schedule.Schedule, error) {
	err := db.tx(ctx, func(ctx context.Context, tx *txn) error {
		if err := tx.serialize(ctx, "schedules:"+s.Conversation); err != nil {
			return err
		}
		prior, _, err := scanSchedule(tx.QueryRowContext(ctx, `SELECT `+scheduleCols+` FROM schedules WHERE id = ?`, s.ID))
		if err == nil {
			s = prior
			return nil
		}
		if !errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("read schedule: %w", err)
		}
		err = tx.QueryRowContext(ctx, `SELECT session_id FROM conversations WHERE id = ?`, s.Conversation).Scan(&s.Owner)
		if errors.Is(err, sql.ErrNoRows) {
			return apperr.Errorf(apperr.NotFound, "There is no conversation %q.", s.Conversation)
		}
		if err != nil {
			return fmt.Errorf("read conversation: %w", err)
		}
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM schedules WHERE conversation_id = ? AND cancelled_at IS NULL`, s.Conversation).Scan(&n); err != nil {
			return fmt.Errorf("count schedules: %w", err)
		}
		if n >= limit {
			return apperr.Errorf(apperr.Conflict, "This conversation has %d scheduled messages, the most it may have: cancel one first.", n)
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO schedules(`+scheduleCols+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, NULL)`,
			s.ID, s.Conversation, s.Owner, s.Message, s.Every.Milliseconds(), s.Cron, s.Next.UnixMilli(), s.Created.UnixMilli()); err != nil {
			return fmt.Errorf("add schedule: %w", err)
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO timers(conversation_id, key, owner, due_at, claimed_until) VALUES (?, ?, ?, ?, 0)`,
			s.Conversation, timers.Key(schedule.Kind, s.ID), s.Owner, s.Next.UnixMilli()); err != nil {
			return fmt.Errorf("add schedule's timer: %w", err)
		}
		return nil
	})
	if err != nil {
		return schedule.Schedule{}, err
	}
	return s, nil
}

// ScheduleByID returns the schedule of id; done says it ended. NotFound
// for none.
func (db *DB) ScheduleByID(ctx context.Context, id string) (schedule.Schedule, bool, error) {
	s, done, err := scanSchedule(db.read.QueryRowContext(ctx, `SELECT `+scheduleCols+` FROM schedules WHERE id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return schedule.Schedule{}, false, apperr.Errorf(apperr.NotFound, "There is no schedule %q.", id)
	}
	if err != nil {
		return schedule.Schedule{}, false, fmt.Errorf("read schedule: %w", err)
	}
	return s, done, nil
}

// SchedulesOf lists the conversation's active schedules, next first.
func (db *DB) SchedulesOf(ctx context.Context, conversation string) ([]schedule.Schedule, error) {
	rows, err := rowsOf(db.stmts.schedulesOf.QueryContext(ctx, conversation))
	if err != nil {
		return nil, fmt.Errorf("list schedules: %w", err)
	}
	defer rows.Close()
	var out []schedule.Schedule
	for rows.Next() {
		s, _, err := scanSchedule(rows)
		if err != nil {
			return nil, fmt.Errorf("list schedules: %w", err)
		}
		out = append(out, s)
	}
	return out, rows.Err()
}

// CancelSchedule ends the conversation's schedule id, owned by owner (""
// for any), and drops its timer; one ended already stays as it is.
// NotFound when the conversation (of owner) has no schedule id.
func (db *DB) CancelSchedule(ctx context.Context, owner, conversation, id string) error {
	return db.tx(ctx, func(ctx context.Context, tx *txn) error {
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM schedules WHERE id = ? AND conversation_id = ? AND (? = '' OR owner = ?)`,
			id, conversation, owner, owner).Scan(&n); err != nil {
			return fmt.Errorf("cancel schedule: %w", err)
		}
		if n == 0 {
			return apperr.Errorf(apperr.NotFound, "This conversation has no scheduled message %q.", id)
		}
		if _, err := tx.ExecContext(ctx, `UPDATE schedules SET cancelled_at = ? WHERE id = ? AND cancelled_at IS NULL`, db.now().UnixMilli(), id); err != nil {
			return fmt.Errorf("cancel schedule: %w", err)
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM timers WHERE conversation_id = ? AND key = ?`, conversation, timers.Key(schedule.Kind, id)); err != nil {
			return fmt.Errorf("cancel schedule: %w", err)
		}
		return nil
	})
}

// MoveSchedule records the next occurrence of schedule id, or, for the
// zero time, ends it.
func (db *DB) MoveSchedule(ctx context.Context, id string, next time.Time) error {
	return db.tx(ctx, func(ctx context.Context, tx *txn) error {
		q, arg := `UPDATE schedules SET next_at = ? WHERE id = ? AND cancelled_at IS NULL`, next.UnixMilli()
		if next.IsZero() {
			q, arg = `UPDATE schedules SET cancelled_at = ? WHERE id = ? AND cancelled_at IS NULL`, db.now().UnixMilli()
		}
		if _, err := tx.ExecContext(ctx, q, arg, id); err != nil {
			return fmt.Errorf("move schedule: %w", err)
		}
		return nil
	})
}
