package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"os"
)

// ErrNoSchema is returned by Snapshot for a SQLite file that holds no
// database of ours: no schema, as an empty file, another program's
// database, or the copy of a live one whose tables are still in the
// write-ahead log the copy left behind.
var ErrNoSchema = errors.New("it holds no sweatpants database (no schema_migrations table)")

// SnapshotOptions are what Snapshot is told of the database's users.
type SnapshotOptions struct {
	// Unshared says that no other process opens the database while the
	// snapshot is taken (the caller holds the server's lock): when it has
	// no write-ahead log, its file alone is read, and no -wal or -shm file
	// is left beside it.
	Unshared bool
}

// Snapshot copies the SQLite database at path into a new file at dest, as
// it is at one moment: what its write-ahead log holds included, while a
// server writes to it or not. It only reads path: it opens it read-only,
// migrates nothing and takes no lock, so a check can be run on the live
// database of a running server. dest must not exist. ErrNoSchema (wrapped)
// when path holds no database of ours; then dest is not made.
func Snapshot(ctx context.Context, path, dest string, opts SnapshotOptions) error {
	if _, err := os.Stat(path); err != nil {
		return fmt.Errorf("snapshot %s: %w", path, err)
	}
	// mode=ro opens the file read-only: nothing this connection does can
	// change it (query_only would refuse VACUUM INTO too, which writes to
	// dest alone). The busy timeout waits out a server's checkpoint. A
	// read-only reader of a database in WAL mode makes its -wal and -shm
	// files, and cannot remove them when it ends; a database nobody else
	// opens and with no log has all it holds in its file, which is then
	// read as one that cannot change (immutable), with no files made.
	mode := "&mode=ro"
	if _, err := os.Stat(path + "-wal"); opts.Unshared && errors.Is(err, fs.ErrNotExist) {
		mode += "&immutable=1"
	}
	src, err := sql.Open("sqlite", dsn(path, "busy_timeout(10000)")+mode)
	if err != nil {
		return fmt.Errorf("snapshot %s: %w", path, err)
	}
	defer src.Close()
	var tables int
	err = src.QueryRowContext(ctx, `SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'`).Scan(&tables)
	if err != nil {
		return fmt.Errorf("snapshot %s: %w", path, err)
	}
	if tables == 0 {
		return fmt.Errorf("snapshot %s: %w", path, ErrNoSchema)
	}
	// VACUUM INTO reads the database in one read transaction, through the
	// write-ahead log as any reader does, and writes the copy to dest
	// alone.
	if _, err := src.ExecContext(ctx, `VACUUM INTO ?`, dest); err != nil {
		os.Remove(dest)
		return fmt.Errorf("snapshot %s: %w", path, err)
	}
	return nil
}
