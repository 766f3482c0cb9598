package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/sweatpants-go/sweatpants/internal/apperr"
	"github.com/sweatpants-go/sweatpants/internal/files"
)

// Uploads (files.File): the files a session sent (package files decides what is
// accepted, and how it is named and typed; this is where they are kept).
// A file's bytes are a blob, stored once per content under their SHA-256,
// in chunks of ChunkSize: a write or a read holds one chunk at a time,
// never the whole file.

// ChunkSize is the size of a blob's chunks, all of them but the last. A
// reader finds the chunk that holds an offset by it, so it is fixed for
// good: blobs already written are split by it.
const ChunkSize = 256 << 10

// The store is where package files keeps files.
var _ files.DB = (*DB)(nil)

// PutUpload records u, whose bytes content holds: exactly u.Size of them,
// whose SHA-256 is u.Hash. The blob is written, in chunks, only if no
// upload brought the same bytes before. Upload and blob are one
// transaction, so a crash records both or neither. content is read from
// its start, perhaps more than once (a write may be run again), never
// while held in memory whole. The upload's Created is now.
func (db *DB) PutUpload(ctx context.Context, u files.File, content io.ReadSeeker) (files.File, error) {
	u.Created = time.UnixMilli(db.now().UnixMilli()) // as read back
	err := db.tx(ctx, func(ctx context.Context, tx *txn) error {
		// Whether the blob is there is read, then decided: another upload
		// of the same bytes, or a collection, waits until this one ends.
		if err := tx.serialize(ctx, "blob:"+u.Hash); err != nil {
			return err
		}
		var have int
		err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM blobs WHERE hash = ? AND seq = 0`, u.Hash).Scan(&have)
		if err != nil {
			return err
		}
		if have == 0 {
			if err := writeBlob(ctx, tx, u.Hash, u.Size, content); err != nil {
				return err
			}
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO uploads(id, session_id, name, type, size, hash, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)`,
			u.ID, u.Session, u.Name, u.Type, u.Size, u.Hash, u.Created.UnixMilli())
		return err
	})
	if err != nil {
		return files.File{}, fmt.Errorf("record upload: %w", err)
	}
	return u, nil
}

// writeBlob writes the size bytes of content as blob hash's chunks.
func writeBlob(ctx context.Context, tx *txn, hash string, size int64, content io.ReadSeeker) error {
	if _, err := content.Seek(0, io.SeekStart); err != nil {
		return err
	}
	buf := make([]byte, ChunkSize)
	var written int64
	for seq := 0; seq == 0 || written < size; seq++ {
		n, err := io.ReadFull(content, buf[:min(int64(len(buf)), size-written)])
		if err != nil && n < int(min(int64(len(buf)), size-written)) {
			return fmt.Errorf("read upload: %w", err)
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO blobs(hash, seq, data) VALUES (?, ?, ?)`, hash, seq, buf[:n]); err != nil {
			return err
		}
		written += int64(n)
	}
	return nil
}

// Upload returns upload id if session owns it. Another session's upload is
// NotFound, as a missing one.
func (db *DB) Upload(ctx context.Context, session, id string) (files.File, error) {
	u := files.File{ID: id, Session: session}
	var created int64
	err := db.read.QueryRowContext(ctx, `SELECT name, type, size, hash, created_at FROM uploads WHERE id = ? AND session_id = ?`, id, session).
		Scan(&u.Name, &u.Type, &u.Size, &u.Hash, &created)
	if errors.Is(err, sql.ErrNoRows) {
		return files.File{}, apperr.Errorf(apperr.NotFound, "There is no file %q.", id)
	}
	if err != nil {
		return files.File{}, fmt.Errorf("read upload: %w", err)
	}
	u.Created = time.UnixMilli(created)
	return u, nil
}

// Uploads returns the session's uploads among ids, in the order of ids.
// Any that is not the session's is NotFound.
func (db *DB) Uploads(ctx context.Context, session string, ids []string) ([]files.File, error) {
	out := make([]files.File, 0, len(ids))
	for _, id := range ids {
		u, err := db.Upload(ctx, session, id)
		if err != nil {
			return nil, err
		}
		out = append(out, u)
	}
	return out, nil
}

// AttachUploads makes the session's uploads ids used by conversation,
// which the session owns: from then on they live as long as it (or
// another conversation that uses them) does, and as a node of it names
// them (see Collect). Attaching again renews the use.
// An upload or a conversation not the session's is NotFound, and then none
// is attached.
func (db *DB) AttachUploads(ctx context.Context, session, conversation string, ids []string) error {
	return db.tx(ctx, func(ctx context.Context, tx *txn) error {
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM conversations WHERE id = ? AND session_id = ?`, conversation, session).Scan(&n); err != nil {
			return fmt.Errorf("attach files: %w", err)
		}
		if n == 0 {
			return apperr.Errorf(apperr.NotFound, "There is no conversation %q.", conversation)
		}
		for _, id := range ids {
			if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM uploads WHERE id = ? AND session_id = ?`, id, session).Scan(&n); err != nil {
				return fmt.Errorf("attach files: %w", err)
			}
			if n == 0 {
				return apperr.Errorf(apperr.NotFound, "There is no file %q.", id)
			}
			if _, err := tx.ExecContext(ctx, `INSERT INTO upload_uses(upload_id, conversation_id, attached_at) VALUES (?, ?, ?)
				ON CONFLICT (upload_id, conversation_id) DO UPDATE SET attached_at = excluded.attached_at`, id, conversation, db.now().UnixMilli()); err != nil {
				return fmt.Errorf("attach files: %w", err)
			}
		}
		return nil
	})
}

// DiscardUploads deletes the session's uploads ids that no conversation
// uses, and their blobs if no other upload has the same bytes: what an
// upload refused halfway recorded. Others are left as they are.
func (db *DB) DiscardUploads(ctx context.Context, session string, ids []string) error {
	err := db.tx(ctx, func(ctx context.Context, tx *txn) error {
		var hashes []string
		for _, id := range ids {
			var hash string
			err := tx.QueryRowContext(ctx, `DELETE FROM uploads WHERE id = ? AND session_id = ?
				AND NOT EXISTS (SELECT 1 FROM upload_uses WHERE upload_id = uploads.id) RETURNING hash`, id, session).Scan(&hash)
			if errors.Is(err, sql.ErrNoRows) {
				continue
			}
			if err != nil {
				return err
			}
			hashes = append(hashes, hash)
		}
		_, err := dropOrphanBlobs(ctx, tx, hashes)
		return err
	})
	if err != nil {
		return fmt.Errorf("discard uploads: %w", err)
	}
	return nil
}

// dropConversationUploads deletes what conversation used of uploads: its
// uses, the uploads no other conversation uses, and their blobs if no
// other upload has the same bytes. It is part of deleting a conversation.
func dropConversationUploads(ctx context.Context, tx *txn, conversation string) error {
	rows, err := tx.QueryContext(ctx, `SELECT upload_id FROM upload_uses WHERE conversation_id = ?`, conversation)
	if err != nil {
		return err
	}
	ids, err := scanStrings(rows)
	if err != nil {
		return err
	}
	return releaseUploads(ctx, tx, conversation, ids)
}

// useGrace is how long a use of an upload is kept though no node of its
// conversation names the upload: the message or answer that will may not
// be recorded yet.
const useGrace = time.Hour

// releaseUnnamedUploads drops the uses of conversation older than
// useGrace whose upload no node of it names any more (gc removed the
// branches that did), as releaseUploads does. An upload's id is 128 random
// bits, so a node whose payload holds it in quotes is one that names it.
func (db *DB) releaseUnnamedUploads(ctx context.Context, tx *txn, conversation string) error {
	rows, err := tx.QueryContext(ctx, `SELECT u.upload_id FROM upload_uses u WHERE u.conversation_id = ? AND u.attached_at < ?
		AND NOT EXISTS (SELECT 1 FROM nodes n WHERE n.conversation_id = u.conversation_id
			AND `+db.eng.text("n.payload")+` LIKE '%"' || u.upload_id || '"%')`,
		conversation, db.now().Add(-useGrace).UnixMilli())
	if err != nil {
		return err
	}
	ids, err := scanStrings(rows)
	if err != nil {
		return err
	}
	return releaseUploads(ctx, tx, conversation, ids)
}

// releaseUploads drops conversation's uses of uploads ids, deletes those
// of them no other conversation uses, and their blobs if no other upload
// has the same bytes.
func releaseUploads(ctx context.Context, tx *txn, conversation string, ids []string) error {
	var hashes []string
	for _, id := range ids {
		if _, err := tx.ExecContext(ctx, `DELETE FROM upload_uses WHERE upload_id = ? AND conversation_id = ?`, id, conversation); err != nil {
			return err
		}
		var hash string
		err := tx.QueryRowContext(ctx, `DELETE FROM uploads WHERE id = ?
			AND NOT EXISTS (SELECT 1 FROM upload_uses WHERE upload_id = uploads.id) RETURNING hash`, id).Scan(&hash)
		if errors.Is(err, sql.ErrNoRows) {
			continue
		}
		if err != nil {
			return err
		}
		hashes = append(hashes, hash)
	}
	_, err := dropOrphanBlobs(ctx, tx, hashes)
	return err
}

// CollectUploads deletes the uploads no conversation used within unused
// of their coming (sent, then never part of a message or an answer), and
// every blob no upload has: what gc removes. It returns how many uploads
// it removed.
func (db *DB) CollectUploads(ctx context.Context, unused time.Duration) (int, error) {
	removed := 0
	err := db.tx(ctx, func(ctx context.Context, tx *txn) error {
		rows, err := tx.QueryContext(ctx, `DELETE FROM uploads WHERE created_at < ?
			AND NOT EXISTS (SELECT 1 FROM upload_uses WHERE upload_id = uploads.id) RETURNING hash`,
			db.now().Add(-unused).UnixMilli())
		if err != nil {
			return err
		}
		gone, err := scanStrings(rows)
		if err != nil {
			return err
		}
		removed = len(gone)
		rows, err = tx.QueryContext(ctx, `SELECT hash FROM blobs WHERE seq = 0
			AND NOT EXISTS (SELECT 1 FROM uploads WHERE uploads.hash = blobs.hash)
			AND NOT EXISTS (SELECT 1 FROM derived_blobs d WHERE d.hash = blobs.hash)
			UNION SELECT DISTINCT source FROM derived_blobs
			WHERE NOT EXISTS (SELECT 1 FROM uploads WHERE uploads.hash = derived_blobs.source)`)
		if err != nil {
			return err
		}
		orphans, err := scanStrings(rows)
		if err != nil {
			return err
		}
		_, err = dropOrphanBlobs(ctx, tx, orphans)
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("collect uploads: %w", err)
	}
	return removed, nil
}

// dropOrphanBlobs deletes the blobs among hashes that no upload has, with
// what was made of them (derived_blobs) unless an upload or another source
// has that too, and returns how many it deleted. On PostgreSQL each is
// decided under the blob's lock, so an upload of the same bytes under way
// (PutUpload) keeps the blob it found.
func dropOrphanBlobs(ctx context.Context, tx *txn, hashes []string) (int, error) {
	n := 0
	for i := 0; i < len(hashes); i++ {
		hash := hashes[i]
		if err := tx.serialize(ctx, "blob:"+hash); err != nil {
			return n, err
		}
		var used int
		if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM uploads WHERE hash = ?`, hash).Scan(&used); err != nil {
			return n, err
		}
		if used > 0 {
			continue
		}
		made, err := dropDerived(ctx, tx, hash)
		if err != nil {
			return n, err
		}
		hashes = append(hashes, made...)
		res, err := tx.ExecContext(ctx, `DELETE FROM blobs WHERE hash = ? AND seq = 0
			AND NOT EXISTS (SELECT 1 FROM derived_blobs WHERE hash = ?)`, hash, hash)
		if err != nil {
			return n, err
		}
		if gone, _ := res.RowsAffected(); gone == 0 {
			continue
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM blobs WHERE hash = ?`, hash); err != nil {
			return n, err
		}
		n++
	}
	return n, nil
}

// scanStrings reads the one text column of rows, and closes them.
func scanStrings(rows *rowSet) ([]string, error) {
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, rows.Err()
}

// UploadsSize returns the bytes of the session's uploads together, and of
// all uploads: what quotas count (an upload of bytes another has too is
// counted again, as the session that sent it is charged for it).
func (db *DB) UploadsSize(ctx context.Context, session string) (ofSession, total int64, err error) {
	err = db.read.QueryRowContext(ctx, `SELECT
			CAST(COALESCE(SUM(CASE WHEN session_id = ? THEN size ELSE 0 END), 0) AS bigint),
			CAST(COALESCE(SUM(size), 0) AS bigint)
		FROM uploads`, session).Scan(&ofSession, &total)
	if err != nil {
		return 0, 0, fmt.Errorf("measure uploads: %w", err)
	}
	return ofSession, total, nil
}
