package app

import (
	"context"
	"fmt"

	"github.com/sweatpants-go/sweatpants/internal/store"
)

// openStore opens the database at target: a SQLite file, after taking its
// lock (lockDB), or a PostgreSQL database (a connection string), which
// several processes share by design. A SQLite file that is missing where
// one was created before is refused (dbmark.go). Every error names the
// database (without a password) and says what went wrong with it. release
// gives the lock back; call it after closing the database.
func openStore(ctx context.Context, program, target string, opts store.Options) (db *store.DB, release func(), err error) {
	if err := store.CheckTarget(target); err != nil {
		return nil, nil, fmt.Errorf("--db %s: %w", shownDB(target), err)
	}
	release = func() {}
	sqlite := !store.IsPostgres(target)
	if sqlite {
		// Before the lock, which creates the file on Linux.
		if err := checkNotLost(target); err != nil {
			return nil, nil, err
		}
		if release, err = lockDB(program, target); err != nil {
			return nil, nil, err
		}
	}
	db, err = store.Open(ctx, target, opts)
	if err != nil {
		release()
		return nil, nil, fmt.Errorf("database %s: %w", shownDB(target), err)
	}
	if sqlite {
		if err := markCreated(program, target); err != nil {
			db.Close()
			release()
			return nil, nil, err
		}
	}
	return db, release, nil
}

// shownDB is how a database is named in logs and errors: a PostgreSQL
// connection string without its password.
func shownDB(target string) string { return store.ShownTarget(target) }
