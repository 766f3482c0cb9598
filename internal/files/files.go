// Package files takes the files people attach to messages or give as
// answers: it decides whether a file is accepted (its size, its type from
// an allow-list, sniffed from its content and never taken from the client
// alone), names it (never a path), and keeps it in the store, streamed
// through a spool file rather than held in memory, to be served back to
// the session that sent it alone.
package files

import (
	"bytes"
	"cmp"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"net/url"
	"os"
	"slices"
	"time"

	"github.com/sweatpants-go/sweatpants/internal/apperr"
	"github.com/sweatpants-go/sweatpants/internal/bytesize"
	"github.com/sweatpants-go/sweatpants/internal/tree"
)

// File is one upload: ID is the upload's (what URL serves), Hash the
// SHA-256 of its bytes, which uploads of the same bytes share.
type File struct {
	ID, Session, Name, Type, Hash string
	Size                          int64
	Created                       time.Time
}

// Attachment is how a message or an answer names f.
func Attachment(f File) tree.Attachment {
	return tree.Attachment{ID: f.ID, Name: f.Name, Type: f.Type, Size: f.Size}
}

// URL is where the file with id is served (GET /files/:id).
func URL(id string) string { return "/files/" + url.PathEscape(id) }

// DefaultUnused is how long an upload no message or answer has used is
// kept before GC removes it: a file picked and never sent.
const DefaultUnused = 24 * time.Hour

// Options configure a Store; zero fields take the defaults.
type Options struct {
	Limits Limits        // the server's limits (Attach checks a message's total by them)
	Unused time.Duration // how long an unused upload is kept; DefaultUnused when 0
	Spool  string        // the directory uploads are spooled in; os.TempDir() when ""
	// Disks are directories on the disks the database writes to (a SQLite
	// database's folder), whose free space Limits.Reserve keeps; the
	// spool's is watched too.
	Disks []string
	// Free says how many bytes the disk holding dir has free for the
	// server; FreeSpace when nil.
	Free func(dir string) (uint64, error)
}

// DB is where files are kept: the store (*store.DB), on either engine.
// Its methods are those of package store, whose comments say what each
// does and returns.
type DB interface {
	PutUpload(ctx context.Context, f File, content io.ReadSeeker) (File, error)
	Upload(ctx context.Context, session, id string) (File, error)
	Uploads(ctx context.Context, session string, ids []string) ([]File, error)
	OpenBlob(ctx context.Context, hash string, size int64) io.ReadSeekCloser
	AttachUploads(ctx context.Context, session, conversation string, ids []string) error
	DiscardUploads(ctx context.Context, session string, ids []string) error
	CollectUploads(ctx context.Context, unused time.Duration) (int, error)
	UploadsSize(ctx context.Context, session string) (ofSession, total int64, err error)
	Derived(ctx context.Context, source, name string) (Blob, bool, error)
	PutDerived(ctx context.Context, source, name string, data []byte) (Blob, error)
}

// Blob names stored bytes: their SHA-256 and their size.
type Blob struct {
	Hash string
	Size int64
}

// Store keeps files in the database.
type Store struct {
	db     DB
	limits Limits
	unused time.Duration
	spool  string
	disks  []string
	free   func(dir string) (uint64, error)
}

// New returns the files kept in db.
func New(db DB, opts Options) *Store {
	if opts.Unused <= 0 {
		opts.Unused = DefaultUnused
	}
	if opts.Free == nil {
		opts.Free = FreeSpace
	}
	disks := append(slices.Clip(opts.Disks), cmp.Or(opts.Spool, os.TempDir()))
	return &Store{db: db, limits: opts.Limits.orDefaults(), unused: opts.Unused, spool: opts.Spool, disks: disks, free: opts.Free}
}

// Limits returns the server's limits.
func (s *Store) Limits() Limits { return s.limits }

// Put reads a file from r and records it as session's upload, called name
// (cleaned: CleanName), of the type decided from its first bytes and its
// name (the client's declaredType only breaks a tie between text types).
// Errors: Unsupported for a type lim does not allow, TooLarge for a file
// over lim.MaxFile; then nothing is recorded, and r is not read to its
// end. The bytes pass through a spool file, so memory holds a small buffer
// of them at a time, and are recorded in one transaction: a crash records
// the upload whole or not at all.
func (s *Store) Put(ctx context.Context, session, name, declaredType string, r io.Reader, lim Limits) (File, error) {
	lim = lim.orDefaults()
	name = CleanName(name)
	head := make([]byte, sniffLen)
	n, err := io.ReadFull(r, head)
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
		return File{}, fmt.Errorf("read upload: %w", err)
	}
	head = head[:n]
	t, err := decideType(name, declaredType, head, lim)
	if err != nil {
		return File{}, err
	}
	name = nameFor(name, t)
	spool, err := os.CreateTemp(s.spool, "upload-*")
	if err != nil {
		return File{}, fmt.Errorf("spool upload: %w", err)
	}
	// The spool file is unlinked at once where the system allows it (it
	// lives on while open), so that a process killed mid-upload leaves no
	// file behind; elsewhere it is removed once done.
	unlinked := os.Remove(spool.Name()) == nil
	defer func() {
		spool.Close()
		if !unlinked {
			os.Remove(spool.Name())
		}
	}()
	sum := sha256.New()
	size, err := copyAtMost(io.MultiWriter(spool, sum), io.MultiReader(bytes.NewReader(head), r), lim.MaxFile)
	if err != nil {
		return File{}, err
	}
	if size > lim.MaxFile {
		return File{}, apperr.Errorf(apperr.TooLarge, "%s is larger than %s, the most a file may be.", name, bytesize.Words(lim.MaxFile))
	}
	return s.db.PutUpload(ctx, File{ID: newID(), Session: session, Name: name, Type: t, Hash: hexSum(sum), Size: size}, spool)
}

// copyAtMost copies r to w until r ends or more than limit bytes came,
// and returns how many bytes it copied: limit+1 when r had more.
func copyAtMost(w io.Writer, r io.Reader, limit int64) (int64, error) {
	n, err := io.CopyBuffer(w, io.LimitReader(r, limit+1), make([]byte, 32<<10))
	if err != nil {
		return n, fmt.Errorf("read upload: %w", err)
	}
	return n, nil
}

// Stat returns session's file id. Errors: NotFound for a file that is not
// the session's, as for one that does not exist.
func (s *Store) Stat(ctx context.Context, session, id string) (File, error) {
	return s.db.Upload(ctx, session, id)
}

// Open returns session's file id and a reader of its bytes, which reads a
// chunk at a time and seeks. Errors: as Stat's.
func (s *Store) Open(ctx context.Context, session, id string) (File, io.ReadSeekCloser, error) {
	f, err := s.Stat(ctx, session, id)
	if err != nil {
		return File{}, nil, err
	}
	return f, s.db.OpenBlob(ctx, f.Hash, f.Size), nil
}

// Read opens session's file id for reading: Open without the file.
func (s *Store) Read(ctx context.Context, session, id string) (io.ReadCloser, error) {
	_, rc, err := s.Open(ctx, session, id)
	return rc, err
}

// Attachment returns session's file id as a message or an answer names
// it. Errors: as Stat's.
func (s *Store) Attachment(ctx context.Context, session, id string) (tree.Attachment, error) {
	f, err := s.Stat(ctx, session, id)
	return Attachment(f), err
}

// Attach makes session's files ids the conversation's (a message's or an
// answer's): they live as long as it does and are deleted with it.
// Attaching a file again is no change. Errors: NotFound for a file or a
// conversation that is not the session's; TooLarge when the files
// together are over the server's Limits.MaxMessage. Then none is attached.
func (s *Store) Attach(ctx context.Context, session, conversation string, ids []string) error {
	ids = slices.Compact(slices.Sorted(slices.Values(ids)))
	ups, err := s.db.Uploads(ctx, session, ids)
	if err != nil {
		return err
	}
	var total int64
	for _, u := range ups {
		total += u.Size
	}
	if total > s.limits.MaxMessage {
		return apperr.Errorf(apperr.TooLarge, "These files are %s together; a message's files may be at most %s.", bytesize.Words(total), bytesize.Words(s.limits.MaxMessage))
	}
	return s.db.AttachUploads(ctx, session, conversation, ids)
}

// Discard deletes session's files ids that nothing uses: those a request
// refused halfway had recorded.
func (s *Store) Discard(ctx context.Context, session string, ids []string) error {
	return s.db.DiscardUploads(ctx, session, ids)
}

// GC removes the uploads no message or answer used within the store's
// Unused of their coming, and the bytes no upload has; it returns how many
// uploads it removed.
func (s *Store) GC(ctx context.Context) (int, error) {
	return s.db.CollectUploads(ctx, s.unused)
}

// newID is a fresh upload id: 128 random bits in hex, which no one guesses.
func newID() string {
	b := make([]byte, 16)
	rand.Read(b)
	return hex.EncodeToString(b)
}

func hexSum(h hash.Hash) string { return hex.EncodeToString(h.Sum(nil)) }
