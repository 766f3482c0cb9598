package store

import (
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
)

// Known returns the number of the newest migration this build has for the
// database's engine. A database whose Version is higher was migrated by a
// newer build, whose tables this one may misread.
func (db *DB) Known() int {
	names, _ := fs.Glob(migrations, "migrations/"+db.eng.String()+"/*.sql")
	newest := 0
	for _, name := range names {
		num, _, _ := strings.Cut(filepath.Base(name), "_")
		if v, err := strconv.Atoi(num); err == nil {
			newest = max(newest, v)
		}
	}
	return newest
}
