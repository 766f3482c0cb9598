package store

import (
	"context"
	"fmt"
	"sync"
	"time"
)

// maxGroup is the most writes one transaction commits together.
const maxGroup = 64

// The store commits in groups. Every write goes through the one write
// connection, so writes of different conversations queue behind each
// other; a commit costs about the same for one write as for several (most
// of it is writing the pages the commit touched to the log, and writes
// share the pages of the tables' last leaves and of the log's header). So
// the writes that queued while a commit ran are committed together, in one
// transaction, by the first of them. A write with nothing ahead of it
// commits at once, in its own goroutine, with no hand-off.
//
// Each caller still hears of its own write only once it is committed: a
// group is as durable as a single write. A write that fails in a group
// fails the group's transaction; then each write of the group is run
// again alone, so that one write's failure is nobody else's.

// write is one caller's transaction, queued to be committed.
type write struct {
	ctx   context.Context
	fn    func(context.Context, *txn) error
	err   error
	done  chan struct{} // closed once err is final, or when handed the lead
	group []*write      // set when this write is to lead a group
}

// writeQueue is the writes waiting for the commit under way.
type writeQueue struct {
	mu      sync.Mutex
	busy    bool // a write is being committed
	waiting []*write
}

// tx runs fn in a write transaction and commits it, possibly together with
// other writes. A write that started is finished even if the caller gives
// up: the user may already have been told it was accepted, and shutdown
// waits for it.
//
// Its error is coded (classify) when the database cannot take writes for
// a reason of its storage or connection; a SQLite file deleted or replaced
// is refused before the write is tried, since SQLite would write to the
// deleted file.
func (db *DB) tx(ctx context.Context, fn func(context.Context, *txn) error) error {
	if db.committed != nil {
		defer db.timeCommit(time.Now())
	}
	if err := db.health.fileCheck(); err != nil {
		return err
	}
	err := db.queue(ctx, fn)
	db.health.wrote(err)
	return classify(err)
}

// queue commits fn's write: alone on PostgreSQL, in a group on SQLite.
func (db *DB) queue(ctx context.Context, fn func(context.Context, *txn) error) error {
	w := &write{ctx: context.WithoutCancel(ctx), fn: fn}
	if db.eng == enginePostgres {
		return db.commitAlone(w)
	}
	q := &db.writes
	q.mu.Lock()
	if q.busy {
		w.done = make(chan struct{})
		q.waiting = append(q.waiting, w)
		q.mu.Unlock()
		<-w.done
		if w.group == nil {
			return w.err // committed, or failed, by the group's leader
		}
	} else {
		q.busy = true
		q.mu.Unlock()
		w.group = []*write{w}
	}
	db.lead(w.group)
	return w.err
}

// lead commits group, whose first write is the caller's, tells the others
// how it went, and hands the lead to the first of the writes that queued
// meanwhile, with them as its group.
func (db *DB) lead(group []*write) {
	db.commitGroup(group)
	q := &db.writes
	q.mu.Lock()
	next := q.waiting[:min(len(q.waiting), maxGroup)]
	q.waiting = q.waiting[len(next):]
	if len(next) == 0 {
		q.busy = false
		q.waiting = nil
	}
	q.mu.Unlock()
	for _, w := range group[1:] {
		close(w.done)
	}
	if len(next) > 0 {
		next[0].group = next
		close(next[0].done)
	}
}

// commitGroup commits the writes of group, in one transaction when it can,
// and sets the outcome of each.
func (db *DB) commitGroup(group []*write) {
	if len(group) > 1 {
		if db.commit(group...) == nil {
			return
		}
	}
	for _, w := range group {
		w.err = db.commit(w)
	}
}

// commit runs the writes in one transaction and commits it.
func (db *DB) commit(writes ...*write) error {
	tx, err := db.write.begin(context.Background(), nil)
	if err != nil {
		return err
	}
	for _, w := range writes {
		if err := w.run(tx); err != nil {
			tx.Rollback()
			return err
		}
	}
	if err := tx.Commit(); err != nil {
		return err
	}
	db.ckpt.committed()
	for _, w := range writes {
		w.err = nil
	}
	return nil
}

// run runs the write's work in tx. A panic is its error: it must not leave
// the queue without a leader, and the writes grouped with it waiting.
func (w *write) run(tx *txn) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("store: a write panicked: %v", p)
		}
	}()
	return w.fn(w.ctx, tx)
}

// timeCommit tells Options.Committed how long the write that began at
// start took.
func (db *DB) timeCommit(start time.Time) { db.committed(time.Since(start)) }
