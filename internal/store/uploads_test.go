package store

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"testing"
	"time"

	"github.com/sweatpants-go/sweatpants/internal/apperr"
	"github.com/sweatpants-go/sweatpants/internal/files"
	"github.com/sweatpants-go/sweatpants/internal/tree"
)

// putBytes records data as upload id of session.
func putBytes(t *testing.T, db *DB, session, id string, data []byte) files.File {
	t.Helper()
	sum := sha256.Sum256(data)
	u, err := db.PutUpload(context.Background(), files.File{ID: id, Session: session, Name: id + ".bin", Type: "application/octet-stream",
		Hash: hex.EncodeToString(sum[:]), Size: int64(len(data))}, bytes.NewReader(data))
	if err != nil {
		t.Fatalf("put %s: %v", id, err)
	}
	return u
}

// readUpload reads upload id back as session sees it.
func readUpload(t *testing.T, db *DB, session, id string) ([]byte, error) {
	t.Helper()
	u, err := db.Upload(context.Background(), session, id)
	if err != nil {
		return nil, err
	}
	r := db.OpenBlob(context.Background(), u.Hash, u.Size)
	defer r.Close()
	return io.ReadAll(r)
}

// count runs a COUNT(*) query.
func count(t *testing.T, db *DB, q string, args ...any) int {
	t.Helper()
	var n int
	if err := db.read.QueryRowContext(context.Background(), q, args...).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// pattern is n bytes that differ from chunk to chunk, made from seed.
func pattern(n int, seed byte) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i*7) + byte(i/ChunkSize) + seed
	}
	return b
}

// A file over several chunks comes back as it was sent, read whole or
// from any offset, to its session alone; an empty file is a file.
func TestUploadReadsBackToItsSessionAlone(t *testing.T) {
	contract(t, testUploadReadsBackToItsSessionAlone)
}

func testUploadReadsBackToItsSessionAlone(t *testing.T, target string) {
	db := openTarget(t, target, Options{})
	data := pattern(2*ChunkSize+1234, 1)
	putBytes(t, db, "s1", "u1", data)
	putBytes(t, db, "s1", "empty", nil)

	got, err := readUpload(t, db, "s1", "u1")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, data) {
		t.Errorf("read back %d bytes, want the %d sent", len(got), len(data))
	}
	if got, err := readUpload(t, db, "s1", "empty"); err != nil || len(got) != 0 {
		t.Errorf("empty file = %d bytes, %v; want 0, nil", len(got), err)
	}
	u, _ := db.Upload(context.Background(), "s1", "u1")
	r := db.OpenBlob(context.Background(), u.Hash, u.Size)
	at := int64(ChunkSize - 10)
	if _, err := r.Seek(at, io.SeekStart); err != nil {
		t.Fatal(err)
	}
	part := make([]byte, 20)
	if _, err := io.ReadFull(r, part); err != nil || !bytes.Equal(part, data[at:at+20]) {
		t.Errorf("20 bytes across a chunk's end = %v, %v; want the file's", part, err)
	}
	if _, err := readUpload(t, db, "s2", "u1"); apperr.CodeOf(err) != apperr.NotFound {
		t.Errorf("another session reads the file: %v, want NotFound", err)
	}
}

// The same bytes sent twice, by two sessions, are kept once; each session
// has its own upload of them, with its own name.
func TestUploadsOfTheSameBytesShareOneBlob(t *testing.T) {
	contract(t, testUploadsOfTheSameBytesShareOneBlob)
}

func testUploadsOfTheSameBytesShareOneBlob(t *testing.T, target string) {
	db := openTarget(t, target, Options{})
	data := pattern(ChunkSize+1, 2)
	a := putBytes(t, db, "s1", "a", data)
	b := putBytes(t, db, "s2", "b", data)
	if a.Hash != b.Hash {
		t.Fatalf("hashes %s, %s; want one", a.Hash, b.Hash)
	}
	if got, want := count(t, db, `SELECT COUNT(*) FROM blobs WHERE hash = ?`, a.Hash), 2; got != want {
		t.Errorf("chunks kept = %d, want %d (once)", got, want)
	}
	if got, err := readUpload(t, db, "s2", "b"); err != nil || !bytes.Equal(got, data) {
		t.Errorf("the second upload reads %d bytes, %v", len(got), err)
	}
}

// Attaching makes files the conversation's: gc keeps them however old,
// and removes those never attached once old enough, with their bytes.
// Attaching another session's file, or to another session's
// conversation, is NotFound and attaches nothing.
func TestAttachedUploadsOutliveCollection(t *testing.T) {
	contract(t, testAttachedUploadsOutliveCollection)
}

func testAttachedUploadsOutliveCollection(t *testing.T, target string) {
	now := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	db := openTarget(t, target, Options{Now: func() time.Time { return now }})
	ctx := context.Background()
	newConversation(t, db, "s1", "c1")
	newConversation(t, db, "s2", "c2")
	putBytes(t, db, "s1", "kept", []byte("kept"))
	loose := putBytes(t, db, "s1", "loose", []byte("loose"))
	putBytes(t, db, "s2", "theirs", []byte("theirs"))

	if err := db.AttachUploads(ctx, "s1", "c1", []string{"kept", "theirs"}); apperr.CodeOf(err) != apperr.NotFound {
		t.Errorf("attach another session's file: %v, want NotFound", err)
	}
	if err := db.AttachUploads(ctx, "s1", "c2", []string{"kept"}); apperr.CodeOf(err) != apperr.NotFound {
		t.Errorf("attach to another session's conversation: %v, want NotFound", err)
	}
	if got := count(t, db, `SELECT COUNT(*) FROM upload_uses`); got != 0 {
		t.Fatalf("%d uses recorded by refused attaches, want 0", got)
	}
	for range 2 {
		if err := db.AttachUploads(ctx, "s1", "c1", []string{"kept"}); err != nil {
			t.Fatal(err)
		}
	}

	if n, err := db.CollectUploads(ctx, time.Hour); err != nil || n != 0 {
		t.Errorf("collect young uploads: %d, %v; want 0 removed", n, err)
	}
	now = now.Add(2 * time.Hour)
	if n, err := db.CollectUploads(ctx, time.Hour); err != nil || n != 2 {
		t.Errorf("collect: %d, %v; want 2 removed (loose, theirs)", n, err)
	}
	if _, err := readUpload(t, db, "s1", "kept"); err != nil {
		t.Errorf("the attached file after gc: %v", err)
	}
	if _, err := readUpload(t, db, "s1", "loose"); apperr.CodeOf(err) != apperr.NotFound {
		t.Errorf("the file never attached after gc: %v, want NotFound", err)
	}
	if got := count(t, db, `SELECT COUNT(*) FROM blobs WHERE hash = ?`, loose.Hash); got != 0 {
		t.Errorf("%d chunks of the collected file left, want 0", got)
	}
}

// Deleting a conversation deletes the files it used, bytes and all,
// except what another conversation uses or another upload shares.
func TestDeletingAConversationDeletesItsFiles(t *testing.T) {
	contract(t, testDeletingAConversationDeletesItsFiles)
}

func testDeletingAConversationDeletesItsFiles(t *testing.T, target string) {
	db := openTarget(t, target, Options{})
	ctx := context.Background()
	newConversation(t, db, "s1", "c1")
	newConversation(t, db, "s1", "c2")
	alone := putBytes(t, db, "s1", "alone", []byte("only c1's"))
	putBytes(t, db, "s1", "both", []byte("c1's and c2's"))
	putBytes(t, db, "s1", "same", []byte("same bytes"))
	putBytes(t, db, "s1", "twin", []byte("same bytes"))
	if err := db.AttachUploads(ctx, "s1", "c1", []string{"alone", "both", "same"}); err != nil {
		t.Fatal(err)
	}
	if err := db.AttachUploads(ctx, "s1", "c2", []string{"both", "twin"}); err != nil {
		t.Fatal(err)
	}
	if err := db.DeleteConversation(ctx, "s1", "c1"); err != nil {
		t.Fatal(err)
	}
	for id, want := range map[string]bool{"alone": false, "same": false, "both": true, "twin": true} {
		_, err := readUpload(t, db, "s1", id)
		if got := err == nil; got != want {
			t.Errorf("%s after deleting c1: readable %v (%v), want %v", id, got, err, want)
		}
	}
	if got := count(t, db, `SELECT COUNT(*) FROM blobs WHERE hash = ?`, alone.Hash); got != 0 {
		t.Errorf("%d chunks of c1's own file left, want 0", got)
	}
}

// A session rotated (a conversation started) takes its files along, as it
// takes its conversations.
func TestRotatedSessionKeepsItsFiles(t *testing.T) {
	contract(t, testRotatedSessionKeepsItsFiles)
}

func testRotatedSessionKeepsItsFiles(t *testing.T, target string) {
	db := openTarget(t, target, Options{})
	ctx := context.Background()
	if err := db.EnsureSession(ctx, "s1"); err != nil {
		t.Fatal(err)
	}
	putBytes(t, db, "s1", "u1", []byte("mine"))
	next, err := db.RotateSession(ctx, "s1", "s2", "client", time.Minute)
	if err != nil || next != "s2" {
		t.Fatalf("rotate: %q, %v", next, err)
	}
	if got, err := readUpload(t, db, "s2", "u1"); err != nil || string(got) != "mine" {
		t.Errorf("the file in the new session: %q, %v", got, err)
	}
}

// An upload refused halfway is discarded with its bytes; one attached
// meanwhile stays.
func TestDiscardedUploadsLeaveNothing(t *testing.T) {
	contract(t, testDiscardedUploadsLeaveNothing)
}

func testDiscardedUploadsLeaveNothing(t *testing.T, target string) {
	db := openTarget(t, target, Options{})
	ctx := context.Background()
	newConversation(t, db, "s1", "c1")
	putBytes(t, db, "s1", "a", []byte("a"))
	putBytes(t, db, "s1", "b", []byte("b"))
	if err := db.AttachUploads(ctx, "s1", "c1", []string{"b"}); err != nil {
		t.Fatal(err)
	}
	if err := db.DiscardUploads(ctx, "s1", []string{"a", "b"}); err != nil {
		t.Fatal(err)
	}
	if got, want := count(t, db, `SELECT COUNT(*) FROM uploads`), 1; got != want {
		t.Errorf("%d uploads left, want %d (the attached one)", got, want)
	}
	if got, want := count(t, db, `SELECT COUNT(*) FROM blobs`), 1; got != want {
		t.Errorf("%d chunks left, want %d", got, want)
	}
}

// Uploads of the same bytes at once, as two nodes or two tabs send them,
// all succeed and keep the bytes once.
func TestUploadsOfTheSameBytesAtOnce(t *testing.T) {
	contract(t, testUploadsOfTheSameBytesAtOnce)
}

func testUploadsOfTheSameBytesAtOnce(t *testing.T, target string) {
	db := openTarget(t, target, Options{})
	data := pattern(ChunkSize+10, 3)
	errs := make(chan error, 8)
	for i := range 8 {
		go func() {
			sum := sha256.Sum256(data)
			_, err := db.PutUpload(context.Background(), files.File{ID: fmt.Sprint("u", i), Session: "s1", Name: "same.bin",
				Type: "application/octet-stream", Hash: hex.EncodeToString(sum[:]), Size: int64(len(data))}, bytes.NewReader(data))
			errs <- err
		}()
	}
	for range 8 {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
	if got, want := count(t, db, `SELECT COUNT(*) FROM blobs`), 2; got != want {
		t.Errorf("%d chunks kept, want %d (once)", got, want)
	}
	if got, err := readUpload(t, db, "s1", "u7"); err != nil || !bytes.Equal(got, data) {
		t.Errorf("the last upload reads %d bytes, %v", len(got), err)
	}
}

// When gc removes the branches that named a file, the file goes with them;
// a file a node still names stays, and so does one attached a moment ago,
// whose message may be on its way.
func TestCollectedBranchesTakeTheirFiles(t *testing.T) {
	contract(t, testCollectedBranchesTakeTheirFiles)
}

func testCollectedBranchesTakeTheirFiles(t *testing.T, target string) {
	now := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	db := openTarget(t, target, Options{Now: func() time.Time { return now }})
	ctx := context.Background()
	c, first := newConversationSaying(t, db, "s1", "c1", "hello")
	naming := func(parent int64, id string) tree.Node {
		t.Helper()
		payload, _ := json.Marshal(tree.Message{Text: "see", Attachments: []tree.Attachment{{ID: id, Name: id + ".bin"}}})
		n, err := db.Append(ctx, tree.Node{Conversation: c.ID, Parent: parent, Kind: tree.UserMessage, Payload: payload}, tree.AppendOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	for _, id := range []string{"kept", "pruned", "young"} {
		putBytes(t, db, "s1", id, []byte(id))
	}
	kept := naming(first.ID, "kept")
	pruned := naming(kept.ID, "pruned") // a branch gc removes, as far as the store knows
	if err := db.AttachUploads(ctx, "s1", c.ID, []string{"kept", "pruned"}); err != nil {
		t.Fatal(err)
	}
	now = now.Add(2 * time.Hour)
	if err := db.AttachUploads(ctx, "s1", c.ID, []string{"young"}); err != nil {
		t.Fatal(err)
	}
	if err := db.Collect(ctx, c.ID, []int64{pruned.ID}, nil); err != nil {
		t.Fatal(err)
	}
	for id, want := range map[string]bool{"kept": true, "pruned": false, "young": true} {
		_, err := readUpload(t, db, "s1", id)
		if got := err == nil; got != want {
			t.Errorf("%s after gc: readable %v (%v), want %v", id, got, err, want)
		}
	}
}

// What is made of a file for a model is kept by the file's bytes, read
// back by any upload of them, and goes when the last upload of the bytes
// goes, its own bytes with it unless an upload has them too.
func TestDerivedBlobsLiveAsLongAsTheirSource(t *testing.T) {
	contract(t, testDerivedBlobsLiveAsLongAsTheirSource)
}

func testDerivedBlobsLiveAsLongAsTheirSource(t *testing.T, target string) {
	now := time.Date(2026, 12, 6, 12, 0, 0, 0, time.UTC)
	db := openTarget(t, target, Options{Now: func() time.Time { return now }})
	ctx := context.Background()
	photo := putBytes(t, db, "s1", "photo", pattern(ChunkSize+10, 1))
	putBytes(t, db, "s2", "same", pattern(ChunkSize+10, 1))
	small := pattern(ChunkSize+5, 2)
	shared := putBytes(t, db, "s1", "shared", small) // an upload with the bytes made

	if _, ok, err := db.Derived(ctx, photo.Hash, "scaled"); err != nil || ok {
		t.Fatalf("derived before any was kept: %v, %v; want none", ok, err)
	}
	d, err := db.PutDerived(ctx, photo.Hash, "scaled", small)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.PutDerived(ctx, photo.Hash, "scaled", small); err != nil {
		t.Fatalf("kept again (another node made it too): %v", err)
	}
	got, ok, err := db.Derived(ctx, photo.Hash, "scaled")
	if err != nil || !ok || got != d {
		t.Fatalf("derived = %+v, %v, %v; want %+v", got, ok, err, d)
	}
	r := db.OpenBlob(ctx, got.Hash, got.Size)
	data, err := io.ReadAll(r)
	r.Close()
	if err != nil || !bytes.Equal(data, small) {
		t.Fatalf("derived bytes read back %d bytes, %v; want what was kept", len(data), err)
	}

	if err := db.DiscardUploads(ctx, "s1", []string{"photo"}); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := db.Derived(ctx, photo.Hash, "scaled"); !ok {
		t.Error("what was made of the bytes went with one upload of them, while another has them")
	}
	if err := db.DiscardUploads(ctx, "s2", []string{"same"}); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := db.Derived(ctx, photo.Hash, "scaled"); ok {
		t.Error("what was made of the bytes outlived the last upload of them")
	}
	if got := count(t, db, `SELECT COUNT(*) FROM blobs WHERE hash = ?`, photo.Hash); got != 0 {
		t.Errorf("%d chunks of the source left, want 0", got)
	}
	if _, err := readUpload(t, db, "s1", "shared"); err != nil {
		t.Errorf("an upload whose bytes were also made of another: %v", err)
	}

	// Made of a source since gone, the made bytes go with the next
	// collection, unless an upload has them.
	other := putBytes(t, db, "s1", "other", pattern(100, 3))
	made, err := db.PutDerived(ctx, other.Hash, "scaled", pattern(50, 4))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.PutDerived(ctx, "no-such-source", "scaled", pattern(60, 5)); err != nil {
		t.Fatal(err)
	}
	if got := count(t, db, `SELECT COUNT(*) FROM derived_blobs WHERE source = ?`, "no-such-source"); got != 0 {
		t.Errorf("kept what was made of bytes no upload has: %d rows", got)
	}
	now = now.Add(48 * time.Hour)
	if _, err := db.CollectUploads(ctx, time.Hour); err != nil {
		t.Fatal(err)
	}
	for _, h := range []string{other.Hash, made.Hash, shared.Hash} {
		if got := count(t, db, `SELECT COUNT(*) FROM blobs WHERE hash = ?`, h); got != 0 {
			t.Errorf("%d chunks of %s left after collecting every upload, want 0", got, h[:8])
		}
	}
	if got := count(t, db, `SELECT COUNT(*) FROM derived_blobs`); got != 0 {
		t.Errorf("%d derived rows left after collecting every upload, want 0", got)
	}
}

// UploadsSize counts a session's uploads and all of them, on both engines:
// what the quotas on files are kept by.
func TestUploadsSizeCountsASessionsAndAll(t *testing.T) {
	contract(t, func(t *testing.T, target string) {
		db := openTarget(t, target, Options{})
		if mine, all, err := db.UploadsSize(t.Context(), "s1"); err != nil || mine != 0 || all != 0 {
			t.Fatalf("with none = %d, %d, %v; want 0, 0", mine, all, err)
		}
		putBytes(t, db, "s1", "a", pattern(100, 1))
		putBytes(t, db, "s1", "b", pattern(50, 2))
		putBytes(t, db, "s2", "c", pattern(100, 1)) // the same bytes as a, another session's
		mine, all, err := db.UploadsSize(t.Context(), "s1")
		if err != nil || mine != 150 || all != 250 {
			t.Errorf("UploadsSize(s1) = %d, %d, %v; want 150, 250", mine, all, err)
		}
	})
}
