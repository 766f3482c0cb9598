package store

import (
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/sweatpants-go/sweatpants/internal/tree"
)

// A snapshot of a live database holds what its write-ahead log holds:
// the conversations a copy of its main file alone lacks.
func TestASnapshotOfALiveDatabaseReadsItsLog(t *testing.T) {
	ctx := t.Context()
	dir := t.TempDir()
	path := filepath.Join(dir, "live.db")
	db := openTarget(t, path, Options{})
	if _, err := db.write.ExecContext(ctx, `PRAGMA wal_checkpoint(TRUNCATE)`); err != nil {
		t.Fatal(err)
	}
	// A reader that began before the conversation is written keeps the
	// checkpointer from copying it into the main file: it stays in the log.
	reader, err := sql.Open("sqlite", dsn(path))
	if err != nil {
		t.Fatal(err)
	}
	defer reader.Close()
	tx, err := reader.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	var n int
	if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM conversations`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if err := db.EnsureSession(ctx, "me"); err != nil {
		t.Fatal(err)
	}
	if _, err := db.CreateConversation(ctx, tree.Conversation{ID: "c1", Session: "me", Agent: "chat"}); err != nil {
		t.Fatal(err)
	}

	// The main file alone, as `cp live.db` without its -wal copies it.
	copied := filepath.Join(dir, "copied.db")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(copied, b, 0o644); err != nil {
		t.Fatal(err)
	}
	if got := conversationsIn(t, copied, SnapshotOptions{}); len(got) != 0 {
		t.Fatalf("the main file alone holds %d conversations: the test needs them in the log only", len(got))
	}
	if got := conversationsIn(t, path, SnapshotOptions{}); len(got) != 1 || got[0].ID != "c1" {
		t.Errorf("the snapshot of the live database holds %+v, want the conversation in its log", got)
	}
	// As after a server's kill -9: nobody else has it open, and its log
	// still holds what was committed.
	if got := conversationsIn(t, path, SnapshotOptions{Unshared: true}); len(got) != 1 {
		t.Errorf("the snapshot of a database with a log, unshared, holds %+v, want the conversation in its log", got)
	}
}

// conversationsIn snapshots the database at path and reads the session
// me's conversations from the snapshot.
func conversationsIn(t *testing.T, path string, opts SnapshotOptions) []tree.Conversation {
	t.Helper()
	dest := filepath.Join(t.TempDir(), "snapshot.db")
	if err := Snapshot(t.Context(), path, dest, opts); err != nil {
		t.Fatal(err)
	}
	db := openTarget(t, dest, Options{})
	got, err := db.Conversations(t.Context(), "me")
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// A file with no schema of ours is refused, and no snapshot is made.
func TestASnapshotRefusesAFileWithNoSchema(t *testing.T) {
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty.db")
	if err := os.WriteFile(empty, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(dir, "other.db")
	o, err := sql.Open("sqlite", dsn(other))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := o.Exec(`CREATE TABLE notes (text TEXT)`); err != nil {
		t.Fatal(err)
	}
	o.Close()
	for _, path := range []string{empty, other} {
		t.Run(filepath.Base(path), func(t *testing.T) {
			before := fileState(t, path)
			dest := filepath.Join(t.TempDir(), "snapshot.db")
			if err := Snapshot(t.Context(), path, dest, SnapshotOptions{}); !errors.Is(err, ErrNoSchema) {
				t.Errorf("err = %v, want ErrNoSchema", err)
			}
			if _, err := os.Stat(dest); err == nil {
				t.Error("a snapshot was made")
			}
			if after := fileState(t, path); after != before {
				t.Errorf("the file changed: %+v, was %+v", after, before)
			}
		})
	}
}

// A snapshot leaves the database as it was: its bytes and its time of
// change; one no server holds, with no -wal or -shm beside it.
func TestASnapshotLeavesTheFileAsItWas(t *testing.T) {
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), "old.db")
	db, err := Open(ctx, path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := db.EnsureSession(ctx, "me"); err != nil {
		t.Fatal(err)
	}
	if _, err := db.CreateConversation(ctx, tree.Conversation{ID: "c1", Session: "me", Agent: "chat"}); err != nil {
		t.Fatal(err)
	}
	db.Close()
	before := fileState(t, path)
	if got := conversationsIn(t, path, SnapshotOptions{Unshared: true}); len(got) != 1 {
		t.Errorf("the snapshot holds %d conversations, want 1", len(got))
	}
	if after := fileState(t, path); after != before {
		t.Errorf("the file changed: %+v, was %+v", after, before)
	}
	for _, suffix := range []string{"-wal", "-shm"} {
		if _, err := os.Stat(path + suffix); err == nil {
			t.Errorf("the snapshot left %s behind", filepath.Base(path+suffix))
		}
	}
}

// fileState is what a check must leave alone of a file: its bytes and its
// time of change.
type fileStateOf struct {
	bytes string
	mtime time.Time
}

func fileState(t *testing.T, path string) fileStateOf {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fileStateOf{string(b), fi.ModTime()}
}
