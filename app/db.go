package app

import (
	"context"
	"fmt"
	"net/url"

	"github.com/sweatpants-go/sweatpants/store"
)

// openStore opens the database at target: a SQLite file, after taking its
// lock (lockDB), or a PostgreSQL database (a postgres:// URL), which
// several processes share by design. Every error names the database (a
// URL without its password) and says what went wrong with it. release
// gives the lock back; call it after closing the database.
func openStore(ctx context.Context, program, target string, opts store.Options) (db *store.DB, release func(), err error) {
	release = func() {}
	if !store.IsPostgres(target) {
		if release, err = lockDB(program, target); err != nil {
			return nil, nil, err
		}
	}
	db, err = store.Open(ctx, target, opts)
	if err != nil {
		release()
		return nil, nil, fmt.Errorf("database %s: %w", shownDB(target), err)
	}
	return db, release, nil
}

// shownDB is how a database is named in logs and errors: a PostgreSQL
// URL without its password, in the user part or the query.
func shownDB(target string) string {
	if !store.IsPostgres(target) {
		return target
	}
	u, err := url.Parse(target)
	if err != nil {
		return "a postgres:// URL that does not parse"
	}
	if q := u.Query(); q.Has("password") {
		q.Set("password", "xxxxx")
		u.RawQuery = q.Encode()
	}
	return u.Redacted()
}
