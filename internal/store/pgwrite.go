package store

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
)

// On PostgreSQL each write is a transaction of its own, on any connection
// of the pool: writes of different conversations (and nodes) run side by
// side, and the server groups their commits itself. What SQLite's one
// writer gave for free, a write that reads to decide gets from a lock
// (txn.serialize, engine.forUpdate).

// pgRetries is how many times a write that lost a deadlock or a
// serialization conflict is run again before its error is returned.
const pgRetries = 4

// commitAlone runs w in a transaction of its own and commits it, again
// when the server chose it as a deadlock's victim.
func (db *DB) commitAlone(w *write) error {
	for attempt := 0; ; attempt++ {
		err := db.commitOnce(w)
		if err == nil || attempt == pgRetries || !retryable(err) {
			return err
		}
	}
}

func (db *DB) commitOnce(w *write) error {
	tx, err := db.write.begin(w.ctx, nil)
	if err != nil {
		return err
	}
	if err := w.run(tx); err != nil {
		tx.Rollback()
		return err
	}
	return tx.Commit()
}

// autocommit runs fn, a write of one statement, outside a transaction:
// PostgreSQL commits a statement sent on its own as it ends, so the write
// costs one round trip to the server instead of three (BEGIN, the
// statement, COMMIT). It is to such a write what tx is to a transaction:
// the write is finished even if the caller gives up, run again when the
// server chose it as a deadlock's victim (the statement was undone
// whole), timed for Options.Committed, and its error classified.
func (db *DB) autocommit(ctx context.Context, fn func(context.Context) error) error {
	if db.committed != nil {
		defer db.timeCommit(time.Now())
	}
	ctx = context.WithoutCancel(ctx)
	var err error
	for attempt := 0; ; attempt++ {
		err = fn(ctx)
		if err == nil || attempt == pgRetries || !retryable(err) {
			break
		}
	}
	db.health.wrote(err)
	return classify(err)
}

// retryable reports whether err is PostgreSQL's deadlock or serialization
// failure, after which the same transaction run again may well succeed.
func retryable(err error) bool {
	var pg *pgconn.PgError
	return errors.As(err, &pg) && (pg.Code == "40001" || pg.Code == "40P01")
}
