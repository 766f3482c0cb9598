package app

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

// A SQLite database leaves a mark beside it once it exists: a small file,
// .NAME.created (hidden, so that neither `rm NAME*` nor `rm *` removes it
// with the database). A start that finds the mark but not the database
// refuses: the database was deleted or moved, and starting on a new, empty
// one would lose every answer recorded in silence. Deleting the mark is
// how an operator says an empty database is what they want.

// markOf is the path of the mark of the database file at path.
func markOf(path string) string {
	return filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+".created")
}

// checkNotLost returns an error when the database file at path is missing
// although its mark says one was created there, naming both and what to do.
func checkNotLost(path string) error {
	if _, err := os.Stat(path); !errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	mark := markOf(path)
	if _, err := os.Stat(mark); err != nil {
		return nil
	}
	return fmt.Errorf("the database %s is missing, but one was created there (%s says so): "+
		"restore it from a backup, or delete %s to start with an empty database", path, mark, mark)
}

// markCreated writes the mark of the database file at path, if it has
// none yet: once the database is open, it exists.
func markCreated(program, path string) error {
	mark := markOf(path)
	if _, err := os.Stat(mark); err == nil {
		return nil
	}
	text := fmt.Sprintf("%s created the database %s here (seen %s).\n"+
		"While this file is here, %s refuses to start if %s is missing, rather than start on an empty one.\n"+
		"Delete this file to start with an empty database.\n",
		program, filepath.Base(path), time.Now().UTC().Format(time.RFC3339), program, filepath.Base(path))
	if err := os.WriteFile(mark, []byte(text), 0o644); err != nil {
		return fmt.Errorf("database %s: record that it exists: %w", path, err)
	}
	return nil
}
