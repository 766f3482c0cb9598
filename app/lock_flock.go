//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package app

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
)

// lockDB makes sure no other process uses the database at path, and keeps
// it so until release is called or the process ends. program names this
// program in the refusal: the other process is most likely another copy.
//
// SQLite itself lets many processes share a database in WAL mode, so it
// would not stop a second server: both would resume the same suspended
// turns and run their effects twice. The lock is flock(2) on a file next to
// the database, path+".lock", rather than a file whose existence is the
// lock: the kernel drops a flock when its holder dies, even by SIGKILL, so
// a crash never leaves a stale lock behind to be cleared by hand. The file
// records the holder's pid, for the refusal to name. It is never removed:
// removing it could let a process that opened the old file and one that
// creates a new one both hold "the" lock.
//
// Someone else may remove it all the same (rm x.db.lock), after which a
// second process would lock a new file of that name. So on Linux the
// database file itself is locked too (lockFile): a lock file deleted under
// a running server does not let a second one in. Linux keeps flock(2) and
// the fcntl(2) locks SQLite takes apart, so this one does not get in
// SQLite's way; on the BSDs (macOS among them) the two kinds of lock meet,
// so there only the lock file is locked.
func lockDB(program, path string) (release func(), err error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, fmt.Errorf("database %s: create its directory: %w", path, err)
	}
	f, err := os.OpenFile(path+".lock", os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("database %s: open its lock file: %w", path, err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		holder, _ := io.ReadAll(io.LimitReader(f, 32))
		f.Close()
		return nil, refusal(program, path, f.Name(), string(holder), err)
	}
	db, err := lockFile(path)
	if err != nil {
		f.Close()
		return nil, refusal(program, path, path, "", err)
	}
	if err := f.Truncate(0); err == nil {
		f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0) // the pid is only for messages
	}
	// Closing the files releases the locks.
	return func() {
		if db != nil {
			db.Close()
		}
		f.Close()
	}, nil
}

// lockFile locks the database file at path itself, creating it empty if
// it is missing (SQLite takes an empty file as a new database), on Linux;
// elsewhere it returns a nil file (see lockDB).
func lockFile(path string) (*os.File, error) {
	if runtime.GOOS != "linux" {
		return nil, nil
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// refusal says why the database at path could not be locked, by locking
// file: another process holds it (holder: what the lock file says of it),
// or what failed.
func refusal(program, path, file, holder string, err error) error {
	if errors.Is(err, syscall.EWOULDBLOCK) {
		who := "another " + program + " process"
		if pid, err := strconv.Atoi(strings.TrimSpace(holder)); err == nil {
			who += fmt.Sprintf(" (pid %d)", pid)
		}
		return fmt.Errorf("%s is using the database %s: stop it first, or give this one another --db", who, path)
	}
	return fmt.Errorf("database %s: lock %s: %w", path, file, err)
}
