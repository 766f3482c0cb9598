package store

import (
	"bytes"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"

	"github.com/sweatpants-go/sweatpants/internal/files"
)

// Derived blobs (files.Derived): what is made of a file for a model, such
// as a picture scaled to what a provider takes, kept beside the file so it
// is made once, whichever node or turn asks for it next. It is keyed by the
// original's hash and a name saying what was made, and its bytes are a
// blob like any other, shared with an upload of the same bytes. It lives
// as long as its source blob does (dropOrphanBlobs).

// Derived returns the blob made of blob source under name: its hash and
// size, to read with OpenBlob; ok is false when none was kept.
func (db *DB) Derived(ctx context.Context, source, name string) (d files.Blob, ok bool, err error) {
	err = db.read.QueryRowContext(ctx, `SELECT hash, size FROM derived_blobs WHERE source = ? AND name = ?`, source, name).
		Scan(&d.Hash, &d.Size)
	if errors.Is(err, sql.ErrNoRows) {
		return files.Blob{}, false, nil
	}
	if err != nil {
		return files.Blob{}, false, fmt.Errorf("read derived file: %w", err)
	}
	return d, true, nil
}

// PutDerived keeps data as what was made of blob source under name, and
// returns it as Derived will. It keeps nothing when no upload has the
// source any more (it is being collected), and keeps what was kept first
// when another node made it meanwhile: either way the result is the same
// bytes, since what is made of a blob depends on the blob alone.
func (db *DB) PutDerived(ctx context.Context, source, name string, data []byte) (files.Blob, error) {
	sum := sha256.Sum256(data)
	d := files.Blob{Hash: hex.EncodeToString(sum[:]), Size: int64(len(data))}
	err := db.tx(ctx, func(ctx context.Context, tx *txn) error {
		// The source's lock first, as collection takes it: the source
		// cannot be dropped between the look and the row.
		if err := tx.serialize(ctx, "blob:"+source); err != nil {
			return err
		}
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM uploads WHERE hash = ?`, source).Scan(&n); err != nil || n == 0 {
			return err
		}
		if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM derived_blobs WHERE source = ? AND name = ?`, source, name).Scan(&n); err != nil || n > 0 {
			return err
		}
		if d.Hash != source {
			if err := tx.serialize(ctx, "blob:"+d.Hash); err != nil {
				return err
			}
			if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM blobs WHERE hash = ? AND seq = 0`, d.Hash).Scan(&n); err != nil {
				return err
			}
			if n == 0 {
				if err := writeBlob(ctx, tx, d.Hash, d.Size, bytes.NewReader(data)); err != nil {
					return err
				}
			}
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO derived_blobs(source, name, hash, size) VALUES (?, ?, ?, ?)`, source, name, d.Hash, d.Size)
		return err
	})
	if err != nil {
		return files.Blob{}, fmt.Errorf("keep derived file: %w", err)
	}
	return d, nil
}

// dropDerived deletes the rows of what was made of blob source, whose
// source no upload has any more, and returns the hashes they named: blobs
// to drop in turn unless something else has them.
func dropDerived(ctx context.Context, tx *txn, source string) ([]string, error) {
	rows, err := tx.QueryContext(ctx, `DELETE FROM derived_blobs WHERE source = ? RETURNING hash`, source)
	if err != nil {
		return nil, err
	}
	return scanStrings(rows)
}
