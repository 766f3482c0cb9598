package app

import (
	"context"
	"fmt"

	"github.com/sweatpants-go/sweatpants/store"
)

// openStore takes the database's lock (lockDB), then opens the database at
// path. Every error names the file and says what went wrong with it.
// release gives the lock back; call it after closing the database.
func openStore(ctx context.Context, program, path string, opts store.Options) (db *store.DB, release func(), err error) {
	release, err = lockDB(program, path)
	if err != nil {
		return nil, nil, err
	}
	db, err = store.Open(ctx, path, opts)
	if err != nil {
		release()
		return nil, nil, fmt.Errorf("database %s: %w", path, err)
	}
	return db, release, nil
}
