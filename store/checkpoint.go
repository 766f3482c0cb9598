package store

import (
	"context"
	"database/sql"
	"errors"
	"sync"
	"sync/atomic"
	"time"
)

const (
	// checkpointEvery is how often the checkpointer looks for commits to
	// copy from the write-ahead log into the database file.
	checkpointEvery = 100 * time.Millisecond
	// checkpointAfter is how many commits wake the checkpointer before its
	// tick, so that a burst of writes does not grow the log for long.
	checkpointAfter = 256
	// catchUpFrames is how many pages the log may hold before the
	// checkpointer makes the writer wait for it to start over. It is
	// SQLite's own automatic checkpoint threshold.
	catchUpFrames = 1000
)

// checkpointer copies the write-ahead log into the database file. Left to
// itself, SQLite does that on the commit that grows the log past 1000
// pages, and that commit waits for the copy and its fsyncs. The writer has
// automatic checkpoints turned off instead, and the checkpointer runs them
// from a connection of its own in the background: a PASSIVE checkpoint
// neither waits for nor blocks the writer and the readers.
//
// The log starts over from its beginning, and is cut back to
// journalSizeLimit, on the first commit after a checkpoint that copied all
// of it, unless a reader is still reading the old part then. Under steady
// reads and writes that chance is sometimes missed several times in a row;
// once the log holds more than catchUpFrames pages, the checkpointer holds
// the write connection for a RESTART checkpoint, which copies the few
// pages committed since its last checkpoint and clears the way for the
// next commit to start over. Once writes stop, it truncates the log.
type checkpointer struct {
	conn    *sql.DB // one connection, used only for checkpoints
	writer  *sql.DB // the write connection, held to catch up
	commits atomic.Int64
	kick    chan struct{} // checkpointAfter more commits
	stop    chan struct{}
	done    chan struct{} // closed once run returned

	closeOnce sync.Once
	closeErr  error
}

// newCheckpointer starts checkpointing on conn, a pool of one connection
// that it owns, every interval and whenever checkpointAfter more commits
// were reported.
func newCheckpointer(conn, writer *sql.DB, every time.Duration) *checkpointer {
	c := &checkpointer{
		conn:   conn,
		writer: writer,
		kick:   make(chan struct{}, 1),
		stop:   make(chan struct{}),
		done:   make(chan struct{}),
	}
	go c.run(every)
	return c
}

// committed reports a commit of the writer.
func (c *checkpointer) committed() {
	if c.commits.Add(1)%checkpointAfter == 0 {
		select {
		case c.kick <- struct{}{}:
		default:
		}
	}
}

// run checkpoints until stop is closed. A checkpoint that fails is not
// reported: the pages stay in the log, where readers find them, and the
// next checkpoint copies them.
func (c *checkpointer) run(every time.Duration) {
	defer close(c.done)
	ctx := context.Background()
	tick := time.NewTicker(every)
	defer tick.Stop()
	var seen int64    // commits before the last checkpoint
	truncated := true // since the last commit seen
	for {
		select {
		case <-c.stop:
			return
		case <-tick.C:
		case <-c.kick:
		}
		if n := c.commits.Load(); n != seen {
			seen, truncated = n, false
			if frames, _, err := c.checkpoint(ctx, "PASSIVE"); err == nil && frames > catchUpFrames {
				c.catchUp(ctx)
			}
			continue
		}
		if !truncated {
			_, truncated, _ = c.checkpoint(ctx, "TRUNCATE")
		}
	}
}

// catchUp runs a RESTART checkpoint while holding the write connection, so
// that no commit lands while it copies the rest of the log and the next
// commit starts the log over.
func (c *checkpointer) catchUp(ctx context.Context) {
	w, err := c.writer.Conn(ctx)
	if err != nil {
		return
	}
	defer w.Close()
	c.checkpoint(ctx, "RESTART")
}

// checkpoint runs a checkpoint in mode and returns how many pages the log
// holds and whether all of them are now in the database file. Without a
// busy timeout on its connection, a RESTART or TRUNCATE that would wait
// for the writer or a reader gives up instead, and is not complete.
func (c *checkpointer) checkpoint(ctx context.Context, mode string) (frames int, complete bool, err error) {
	var busy, log, copied int
	err = c.conn.QueryRowContext(ctx, "PRAGMA wal_checkpoint("+mode+")").Scan(&busy, &log, &copied)
	return log, err == nil && busy == 0 && log == copied, err
}

// close stops the checkpoints, waits for one under way, truncates the log
// unless someone is reading, and closes the connection.
func (c *checkpointer) close() error {
	c.closeOnce.Do(func() {
		close(c.stop)
		<-c.done
		_, _, err := c.checkpoint(context.Background(), "TRUNCATE")
		c.closeErr = errors.Join(err, c.conn.Close())
	})
	return c.closeErr
}
