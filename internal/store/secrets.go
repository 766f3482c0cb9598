package store

import (
	"context"
	"crypto/rand"
	"fmt"
)

// Secret returns the secret called name: size random bytes made and
// recorded the first time it is asked for, the same bytes ever after, on
// this database. A secret asked for again with another size is the one
// recorded.
func (db *DB) Secret(ctx context.Context, name string, size int) ([]byte, error) {
	var value []byte
	err := db.tx(ctx, func(ctx context.Context, tx *txn) error {
		fresh := make([]byte, size)
		rand.Read(fresh)
		if _, err := tx.ExecContext(ctx, `INSERT INTO secrets(name, value) VALUES (?, ?) ON CONFLICT DO NOTHING`, name, fresh); err != nil {
			return err
		}
		return tx.QueryRowContext(ctx, `SELECT value FROM secrets WHERE name = ?`, name).Scan(&value)
	})
	if err != nil {
		return nil, fmt.Errorf("read secret %s: %w", name, err)
	}
	return value, nil
}
