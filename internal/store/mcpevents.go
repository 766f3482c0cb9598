package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/sweatpants-go/sweatpants/internal/apperr"
)

// MCP streams' events: what an MCP session's SSE streams carried, kept so
// that a client that lost a stream, or whose server restarted, resumes it
// with Last-Event-ID and gets what it missed (internal/mcp's EventStore).
// A stream's events are numbered from 0 in the order they were appended,
// as the MCP SDK numbers the event ids it writes.

// AppendEvent appends data to the session's stream as its next event.
// With opening, the stream starts with it, afresh: a stream of that name
// loses what it held, since the SDK numbers a stream's events from 0 each
// time it opens it (which, for the same id, happens only when a session is
// connected again under its id) and an index must name one event. When
// the stream's events then hold more than keep bytes, the oldest are
// dropped until they fit, the new one always kept (keep 0: no bound).
// Without opening, a stream that was never started, or was forgotten, is
// NotFound: its event could not be numbered as the client was told.
func (db *DB) AppendEvent(ctx context.Context, session, stream string, data []byte, keep int, opening bool) error {
	if data == nil {
		data = []byte{} // an event with no data (the SDK's priming event) still takes its place
	}
	err := db.tx(ctx, func(ctx context.Context, tx *txn) error {
		if opening {
			if _, err := tx.StmtContext(ctx, db.stmts.clearEvents).ExecContext(ctx, session, stream); err != nil {
				return err
			}
			if _, err := tx.StmtContext(ctx, db.stmts.openStream).ExecContext(ctx, session, stream); err != nil {
				return err
			}
		}
		var idx, first, bytes int
		err := tx.StmtContext(ctx, db.stmts.nextEvent).QueryRowContext(ctx,
			len(data), db.now().UnixMilli(), session, stream).Scan(&idx, &first, &bytes)
		if errors.Is(err, sql.ErrNoRows) {
			return apperr.Errorf(apperr.NotFound, "The MCP session %q has no stream %q.", session, stream)
		}
		if err != nil {
			return err
		}
		if _, err := tx.StmtContext(ctx, db.stmts.insertEvent).ExecContext(ctx, session, stream, idx, data); err != nil {
			return err
		}
		if keep > 0 && bytes > keep && idx > first {
			return trimStream(ctx, tx, session, stream, bytes-keep, idx)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("append to MCP stream: %w", err)
	}
	return nil
}

// trimStream drops the stream's oldest events, at least over bytes of
// them, but never the event last.
func trimStream(ctx context.Context, tx *txn, session, stream string, over, last int) error {
	rows, err := tx.QueryContext(ctx, `SELECT idx, octet_length(data) FROM mcp_events
		WHERE session_id = ? AND stream_id = ? AND idx < ? ORDER BY idx`, session, stream, last)
	if err != nil {
		return err
	}
	cut, dropped := last, 0
	for rows.Next() {
		var idx, n int
		if err := rows.Scan(&idx, &n); err != nil {
			rows.Close()
			return err
		}
		if dropped >= over {
			cut = idx
			break
		}
		dropped += n
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM mcp_events WHERE session_id = ? AND stream_id = ? AND idx < ?`, session, stream, cut); err != nil {
		return err
	}
	_, err = tx.ExecContext(ctx, `UPDATE mcp_streams SET first = ?, bytes = bytes - ? WHERE session_id = ? AND stream_id = ?`,
		cut, dropped, session, stream)
	return err
}

// EventsAfter returns the events of the session's stream after index
// (every one for -1), oldest first, and first, the index of the oldest
// event the stream keeps: those before it were dropped to keep the stream
// under its bound. A stream that was never opened, or was forgotten, is
// NotFound.
func (db *DB) EventsAfter(ctx context.Context, session, stream string, index int) (first int, data [][]byte, err error) {
	// One read transaction: the stream's first and its events are of the
	// same moment.
	tx, err := db.read.begin(ctx, db.eng.readOnce())
	if err != nil {
		return 0, nil, fmt.Errorf("read MCP stream: %w", err)
	}
	defer tx.Rollback()
	err = tx.QueryRowContext(ctx, `SELECT first FROM mcp_streams WHERE session_id = ? AND stream_id = ?`, session, stream).Scan(&first)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil, apperr.Errorf(apperr.NotFound, "The MCP session %q has no stream %q.", session, stream)
	}
	if err != nil {
		return 0, nil, fmt.Errorf("read MCP stream: %w", err)
	}
	rows, err := tx.QueryContext(ctx, `SELECT data FROM mcp_events WHERE session_id = ? AND stream_id = ? AND idx > ? ORDER BY idx`,
		session, stream, index)
	if err != nil {
		return 0, nil, fmt.Errorf("read MCP stream: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var d []byte
		if err := rows.Scan(&d); err != nil {
			return 0, nil, fmt.Errorf("read MCP stream: %w", err)
		}
		data = append(data, d)
	}
	if err := rows.Err(); err != nil {
		return 0, nil, fmt.Errorf("read MCP stream: %w", err)
	}
	return first, data, nil
}

// EventStreams returns the names of the session's streams, in no order:
// what a server restarted finds of a session's calls (internal/mcp).
func (db *DB) EventStreams(ctx context.Context, session string) ([]string, error) {
	rows, err := db.read.QueryContext(ctx, `SELECT stream_id FROM mcp_streams WHERE session_id = ?`, session)
	if err != nil {
		return nil, fmt.Errorf("list MCP streams: %w", err)
	}
	defer rows.Close()
	var streams []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			return nil, fmt.Errorf("list MCP streams: %w", err)
		}
		streams = append(streams, s)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list MCP streams: %w", err)
	}
	return streams, nil
}

// ForgetEventSession drops the session's streams and their events: the
// session was closed.
func (db *DB) ForgetEventSession(ctx context.Context, session string) error {
	err := db.tx(ctx, func(ctx context.Context, tx *txn) error {
		_, err := tx.ExecContext(ctx, `DELETE FROM mcp_streams WHERE session_id = ?`, session)
		return err
	})
	if err != nil {
		return fmt.Errorf("forget MCP session: %w", err)
	}
	return nil
}

// ForgetIdleEventSessions drops the streams, and their events, of every
// session none of whose streams was appended to since before,
// and returns how many sessions that was: a session whose client went
// away without closing it.
func (db *DB) ForgetIdleEventSessions(ctx context.Context, before time.Time) (int, error) {
	var n int
	err := db.tx(ctx, func(ctx context.Context, tx *txn) error {
		n = 0
		rows, err := tx.QueryContext(ctx, `SELECT session_id FROM mcp_streams GROUP BY session_id HAVING MAX(touched_at) < ?`,
			before.UnixMilli())
		if err != nil {
			return err
		}
		var idle []string
		for rows.Next() {
			var s string
			if err := rows.Scan(&s); err != nil {
				rows.Close()
				return err
			}
			idle = append(idle, s)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		for _, s := range idle {
			if _, err := tx.ExecContext(ctx, `DELETE FROM mcp_streams WHERE session_id = ?`, s); err != nil {
				return err
			}
		}
		n = len(idle)
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("forget idle MCP sessions: %w", err)
	}
	return n, nil
}
