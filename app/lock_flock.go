//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package app

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
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
		if errors.Is(err, syscall.EWOULDBLOCK) {
			who := "another " + program + " process"
			if pid, err := strconv.Atoi(strings.TrimSpace(string(holder))); err == nil {
				who += fmt.Sprintf(" (pid %d)", pid)
			}
			return nil, fmt.Errorf("%s is using the database %s: stop it first, or give this one another --db", who, path)
		}
		return nil, fmt.Errorf("database %s: lock %s: %w", path, f.Name(), err)
	}
	if err := f.Truncate(0); err == nil {
		f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0) // the pid is only for messages
	}
	// Closing the file releases the lock.
	return func() { f.Close() }, nil
}
