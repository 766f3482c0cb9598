package store

import (
	"context"
	"database/sql"
	"errors"
	"os"
	"sync"
	"sync/atomic"
	"time"
)

const (
	// checkpointEvery is how often the checkpointer looks at the log.
	checkpointEvery = 100 * time.Millisecond
	// checkpointAfter is how many commits wake the checkpointer before its
	// tick, so that a burst of writes does not grow the log for long.
	checkpointAfter = 256
	// checkpointFrames is how many pages the log holds before the
	// checkpointer copies it into the database file: SQLite's own automatic
	// checkpoint threshold. A longer log would start over less often, but
	// every version of a page it holds is one more step in finding the
	// newest, and a crash leaves more of it to read back on open.
	checkpointFrames = 1000
	// journalSizeLimit is the size the log file is cut back to when it
	// starts over, if larger: above what a log cycle reaches, so that
	// starting over does not truncate the file too, on the commit's path.
	journalSizeLimit = 3 * checkpointFrames * 4096
	// settleEvery is how often, at most, the checkpointer syncs the log to
	// disk while commits come in, under process-crash durability, where a
	// commit itself does not: what was committed more than about this long
	// ago survives a power loss too.
	settleEvery = time.Second
	// quietAfter is how long without a commit before the checkpointer
	// copies all of the log into the database file and truncates it.
	quietAfter = time.Minute
)

// checkpointer copies the write-ahead log into the database file. Left to
// itself, SQLite does that on the commit that grows the log past 1000
// pages, and that commit waits for the copy and its fsyncs. The writer has
// automatic checkpoints turned off instead, and the checkpointer runs them
// from a connection of its own in the background: a PASSIVE checkpoint
// neither waits for nor blocks the writer and the readers.
//
// It copies only a log grown past checkpointFrames, not every few commits,
// because of what comes after a copy: the first commit after a checkpoint
// that copied all of the log starts the log over from its beginning, and
// that commit syncs the log's new header to disk, an fsync on the writer's
// path that takes milliseconds (0.3–8 ms on the machine of the README's
// figures). Copying at every tick put that fsync on one commit in ten
// under load, and on every answer of a person who answers at a person's
// pace. It looks at the log's size with a NOOP checkpoint, which copies
// nothing.
//
// A commit is then durable against a crash of the process but stays in the
// log, unsynced, until the next copy; so the checkpointer syncs the log
// itself, off the writer's path, at most every settleEvery while commits
// come in.
//
// The log starts over only if a copy took all of it and no reader still
// reads its old part when the next commit comes. Under steady writes,
// commits land while it copies, and that chance is missed again and again;
// so when the log has not started over by the next look after a copy, the
// checkpointer copies what came since, then holds the write connection for
// a RESTART checkpoint, which copies the few pages committed meanwhile and
// clears the way for the next commit to start over. Only that last step
// makes commits wait.
//
// Once writes stop for quietAfter, it truncates the log, so that a
// database at rest is one file.
type checkpointer struct {
	conn    *sql.DB // one connection, used only for checkpoints
	writer  *sql.DB // the write connection, held to catch up
	wal     string  // the log's path
	settle  bool    // sync the log: commits do not
	quiet   time.Duration
	commits atomic.Int64
	looks   atomic.Int64  // times it looked at the log, for tests to wait on
	syncs   atomic.Int64  // times it synced the log
	kick    chan struct{} // checkpointAfter more commits
	stop    chan struct{}
	done    chan struct{} // closed once run returned

	closeOnce sync.Once
	closeErr  error
}

// newCheckpointer starts checkpointing on conn, a pool of one connection
// that it owns, the log of the database at path: every interval and
// whenever checkpointAfter more commits were reported. settle says whether
// it also syncs the log, and quiet is how long without commits before it
// truncates the log.
func newCheckpointer(conn, writer *sql.DB, path string, every time.Duration, settle bool, quiet time.Duration) *checkpointer {
	c := &checkpointer{
		conn:   conn,
		writer: writer,
		wal:    path + "-wal",
		settle: settle,
		quiet:  quiet,
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

// run checkpoints until stop is closed. A checkpoint or sync that fails is
// not reported: the pages stay in the log, where readers find them, and
// the next try copies them.
func (c *checkpointer) run(every time.Duration) {
	defer close(c.done)
	ctx := context.Background()
	tick := time.NewTicker(every)
	defer tick.Stop()
	var (
		seen      int64     // commits when last looked
		changed   time.Time // when seen last changed
		synced    time.Time // when the log was last synced
		unsynced  bool      // commits since then
		copiedAt  int       // the log's pages at the last copy; 0: none since it started over
		truncated = true    // no commit since the last truncation
	)
	for {
		select {
		case <-c.stop:
			return
		case <-tick.C:
		case <-c.kick:
		}
		now := time.Now()
		if n := c.commits.Load(); n != seen {
			seen, changed, unsynced, truncated = n, now, true, false
			if frames, _, err := c.checkpoint(ctx, "NOOP"); err == nil {
				switch {
				case frames < copiedAt || frames <= checkpointFrames:
					copiedAt = 0 // started over, or small
				case copiedAt > 0:
					c.checkpoint(ctx, "PASSIVE")
					c.catchUp(ctx)
				default:
					c.checkpoint(ctx, "PASSIVE")
					copiedAt = frames
				}
			}
		}
		if c.settle && unsynced && now.Sub(synced) >= settleEvery {
			if c.sync() == nil {
				synced, unsynced = now, false
			}
		}
		if !truncated && now.Sub(changed) >= c.quiet {
			_, truncated, _ = c.checkpoint(ctx, "TRUNCATE")
		}
		c.looks.Add(1)
	}
}

// sync makes what the log holds so far survive a power loss. It changes
// nothing SQLite relies on: syncing a file only makes its written pages
// reach the disk sooner.
func (c *checkpointer) sync() error {
	f, err := os.Open(c.wal)
	if err != nil {
		return err
	}
	c.syncs.Add(1)
	return errors.Join(f.Sync(), f.Close())
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
// holds and whether all of them are now in the database file; NOOP copies
// nothing and only tells. Without a busy timeout on its connection, a
// RESTART or TRUNCATE that would wait for the writer or a reader gives up
// instead, and is not complete.
func (c *checkpointer) checkpoint(ctx context.Context, mode string) (frames int, complete bool, err error) {
	var busy, log, copied int
	err = c.conn.QueryRowContext(ctx, "PRAGMA wal_checkpoint("+mode+")").Scan(&busy, &log, &copied)
	return log, err == nil && busy == 0 && log == copied, err
}

// shutdown stops the checkpoints, waits for one under way, truncates the log
// unless someone is reading, and closes the connection.
func (c *checkpointer) shutdown() error {
	c.closeOnce.Do(func() {
		close(c.stop)
		<-c.done
		_, _, err := c.checkpoint(context.Background(), "TRUNCATE")
		c.closeErr = errors.Join(err, c.conn.Close())
	})
	return c.closeErr
}
