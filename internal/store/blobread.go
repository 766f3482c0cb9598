package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
)

// OpenBlob returns a reader of the size bytes of blob hash (an upload's
// Hash and Size, as Upload returned them). It reads one chunk at a time,
// each in a query of its own, so a slow reader holds no transaction and
// the memory of one chunk. It seeks, for ranges and http.ServeContent.
func (db *DB) OpenBlob(ctx context.Context, hash string, size int64) io.ReadSeekCloser {
	return &blobReader{ctx: ctx, db: db, hash: hash, size: size, seq: -1}
}

type blobReader struct {
	ctx  context.Context
	db   *DB
	hash string
	size int64
	off  int64
	seq  int64  // the chunk held in data; -1 for none
	data []byte // chunk seq
}

func (r *blobReader) Read(p []byte) (int, error) {
	if r.off >= r.size {
		return 0, io.EOF
	}
	seq := r.off / ChunkSize
	if seq != r.seq {
		r.data = r.data[:0]
		err := r.db.read.QueryRowContext(r.ctx, `SELECT data FROM blobs WHERE hash = ? AND seq = ?`, r.hash, seq).Scan(&r.data)
		if errors.Is(err, sql.ErrNoRows) {
			return 0, fmt.Errorf("read file: chunk %d of %s is missing", seq, r.hash)
		}
		if err != nil {
			return 0, fmt.Errorf("read file: %w", err)
		}
		r.seq = seq
	}
	at := r.off - seq*ChunkSize
	if at >= int64(len(r.data)) {
		return 0, fmt.Errorf("read file: chunk %d of %s is short", seq, r.hash)
	}
	n := copy(p, r.data[at:])
	r.off += int64(n)
	return n, nil
}

func (r *blobReader) Seek(offset int64, whence int) (int64, error) {
	switch whence {
	case io.SeekStart:
	case io.SeekCurrent:
		offset += r.off
	case io.SeekEnd:
		offset += r.size
	default:
		return 0, errors.New("seek file: bad whence")
	}
	if offset < 0 {
		return 0, errors.New("seek file: before the start")
	}
	r.off = offset
	return offset, nil
}

// Close lets the chunk held go.
func (r *blobReader) Close() error {
	r.data = nil
	return nil
}
