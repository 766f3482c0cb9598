package store

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"os"
	"strings"
	"sync"
	"syscall"

	"github.com/jackc/pgx/v5/pgconn"
	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/sweatpants-go/sweatpants/internal/apperr"
)

// What users are told when the database cannot take a write for a reason
// of its storage or its connection, not a fault of the request or a bug.
// Each is the coded error (apperr) the store's errors carry then, so that
// the transports answer with a status that says so (503, 507) and these
// words instead of a generic failure.
const (
	goneMessage = "Nothing can be saved: the server's database file was deleted or replaced while the server ran. " +
		"Its operator must restore the file and restart the server."
	fullMessage     = "Nothing can be saved just now: the disk that holds the server's database is full."
	readOnlyMessage = "Nothing can be saved just now: the server's database cannot be written (its disk is read-only, or failing)."
	lostMessage     = "The server lost its connection to the database for a moment; please try again shortly."
)

// classify returns err as a coded error when it is a condition of the
// database's storage or connection: the disk full, the file system or the
// database read-only, the database file gone, the connection to PostgreSQL
// lost. The coded error keeps err as its cause (errors.Is and As find
// both). Other errors are returned as they are.
func classify(err error) error {
	if err == nil {
		return nil
	}
	if _, ok := errors.AsType[*apperr.Error](err); ok {
		return err // coded already, by the store or by the write's own code
	}
	var code apperr.Code
	var msg string
	switch storageCondition(err) {
	case condGone:
		code, msg = apperr.Unavailable, goneMessage
	case condFull:
		code, msg = apperr.NoRoom, fullMessage
	case condReadOnly:
		code, msg = apperr.Unavailable, readOnlyMessage
	case condLost:
		code, msg = apperr.Unavailable, lostMessage
	default:
		return err
	}
	return fmt.Errorf("%w (%w)", &apperr.Error{Code: code, Message: msg}, err)
}

// condition is why the database could not take a write, when the reason
// is its storage or its connection.
type condition int

const (
	condNone condition = iota
	condGone
	condFull
	condReadOnly
	condLost // PostgreSQL's connection, which the pool makes again
)

// storageCondition names err's condition, condNone for any other error.
// A statement stopped because its context ended is none of them: the
// request was cut, not the database.
func storageCondition(err error) condition {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return condNone
	}
	if se, ok := errors.AsType[*sqlite.Error](err); ok {
		switch {
		case se.Code() == sqlite3.SQLITE_READONLY_DBMOVED:
			return condGone
		case se.Code()&0xff == sqlite3.SQLITE_FULL:
			return condFull
		case se.Code()&0xff == sqlite3.SQLITE_READONLY:
			return condReadOnly
		case se.Code() == sqlite3.SQLITE_IOERR_WRITE, se.Code() == sqlite3.SQLITE_IOERR_FSYNC,
			se.Code() == sqlite3.SQLITE_IOERR_DIR_FSYNC, se.Code() == sqlite3.SQLITE_IOERR_TRUNCATE:
			// A write the file system refused: SQLite reports ENOSPC as
			// SQLITE_FULL, and any other errno, EROFS of a file system
			// remounted read-only under it among them, as these.
			return condReadOnly
		}
	}
	if pe, ok := errors.AsType[*pgconn.PgError](err); ok {
		switch {
		case pe.Code == "53100": // disk_full
			return condFull
		case pe.Code == "25006": // read_only_sql_transaction: a standby, or default_transaction_read_only
			return condReadOnly
		case strings.HasPrefix(pe.Code, "08"), // connection exception
			pe.Code == "57P01", pe.Code == "57P02", pe.Code == "57P03": // the server shutting down, crashed, starting
			return condLost
		}
		return condNone
	}
	switch {
	case errors.Is(err, syscall.ENOSPC), errors.Is(err, syscall.EDQUOT):
		return condFull
	case errors.Is(err, syscall.EROFS):
		return condReadOnly
	}
	if _, ok := errors.AsType[*pgconn.ConnectError](err); ok {
		return condLost
	}
	if _, ok := errors.AsType[net.Error](err); ok {
		return condLost
	}
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, driver.ErrBadConn) || pgconn.SafeToRetry(err) {
		return condLost
	}
	return condNone
}

// health is what the store knows of whether it can write: which file its
// SQLite database is, and the storage failure of the last write while no
// write has succeeded since.
type health struct {
	path string      // the SQLite file; "" on PostgreSQL
	file os.FileInfo // path as it was once the database was open

	mu     sync.Mutex
	failed error // the last write's storage failure (coded), nil once a write succeeds
}

// remember records the file at path as the database's, once it is open.
func (h *health) remember(path string) error {
	fi, err := os.Stat(path)
	if err != nil {
		return fmt.Errorf("open database: %w", err)
	}
	h.path, h.file = path, fi
	return nil
}

// fileCheck returns the coded gone error when the database's file is no
// longer at its path, deleted or replaced by another file (another inode).
// SQLite would go on writing to the deleted file, whose writes vanish with
// the process: a write acknowledged then would be lost.
func (h *health) fileCheck() error {
	if h.file == nil {
		return nil
	}
	fi, err := os.Stat(h.path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		err = fmt.Errorf("database %s was deleted while open", h.path)
	case err != nil:
		return fmt.Errorf("database %s: %w", h.path, err)
	case !os.SameFile(fi, h.file):
		err = fmt.Errorf("database %s was replaced by another file while open", h.path)
	default:
		return nil
	}
	return fmt.Errorf("%w (%w)", &apperr.Error{Code: apperr.Unavailable, Message: goneMessage}, err)
}

// wrote records how a write ended: a storage failure is remembered (the
// store cannot write, Check says so) until a write succeeds.
func (h *health) wrote(err error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	switch c := storageCondition(err); {
	case err == nil:
		h.failed = nil
	case c == condGone || c == condFull || c == condReadOnly:
		h.failed = err
	}
}

// lastFailure is the storage failure of the last write, nil if it did not
// fail so.
func (h *health) lastFailure() error {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.failed
}

// probeSize is the bytes the probe writes: more than a page, so that the
// probe needs room in the write-ahead log (and a new page of the file)
// like the writes that failed did.
const probeSize = 8 << 10

// Check returns nil while the database can serve: it answers a query, its
// file is the one it opened (SQLite), and a write can be committed. It
// returns a coded error (apperr: Unavailable, NoRoom), whose message says
// what is wrong, while the file is gone or the store cannot write, and the
// query's error while the database does not answer. Check does not write
// while writes succeed; after a write failed for lack of room or a
// read-only disk, it tries one (written and removed in one transaction),
// so that it says ready again once the disk is writable again.
func (db *DB) Check(ctx context.Context) error {
	if err := db.health.fileCheck(); err != nil {
		return err
	}
	if _, err := db.Version(ctx); err != nil {
		return classify(err)
	}
	if db.health.lastFailure() == nil {
		return nil
	}
	return db.tx(ctx, func(ctx context.Context, tx *txn) error {
		// Nodes that probe at once on PostgreSQL take turns: the probe's
		// row is the same for all.
		if err := tx.serialize(ctx, "probe"); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO schema_migrations(version, name, applied_at) VALUES (0, ?, 0)`,
			strings.Repeat("probe ", probeSize/6)); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `DELETE FROM schema_migrations WHERE version = 0`)
		return err
	})
}
