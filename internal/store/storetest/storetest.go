// Package storetest opens real databases for tests: SQLite files in the
// test's temporary directory, closed when the test ends.
package storetest

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/sweatpants-go/sweatpants/internal/store"
)

// Open opens a fresh database in a temporary directory of tb, with opts if
// given (at most one). The test fails if it cannot; the database is closed
// when the test ends.
func Open(tb testing.TB, opts ...store.Options) *store.DB {
	tb.Helper()
	return OpenAt(tb, filepath.Join(tb.TempDir(), "test.db"), opts...)
}

// OpenAt opens the database file at path, creating it if needed, with opts
// if given (at most one). It is for tests that close a database and open
// the same file again. The test fails if it cannot; the database is closed
// when the test ends, unless the test closed it already (closing twice does
// nothing).
func OpenAt(tb testing.TB, path string, opts ...store.Options) *store.DB {
	tb.Helper()
	var o store.Options
	switch len(opts) {
	case 0:
	case 1:
		o = opts[0]
	default:
		tb.Fatalf("storetest: %d store.Options given, want at most one", len(opts))
	}
	db, err := store.Open(context.Background(), path, o)
	if err != nil {
		tb.Fatalf("open test database: %v", err)
	}
	tb.Cleanup(func() { db.Close() })
	return db
}
