package app

import (
	"bytes"
	"context"
	"log/slog"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sweatpants-go/sweatpants/internal/store"
)

// syncBuffer is a buffer a logger writes to while a test reads it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// A server's log says when its database file is deleted, once, though
// nobody asks /readyz or writes.
func TestTheLogSaysWhenTheDatabaseIsDeleted(t *testing.T) {
	path := filepath.Join(t.TempDir(), "app.db")
	db, err := store.Open(context.Background(), path, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var logged syncBuffer
	stop := watchStore(context.Background(), db, 5*time.Millisecond, slog.New(slog.NewTextHandler(&logged, nil)))
	defer stop()
	removeDB(t, path)
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(logged.String(), "the database cannot serve") {
		if time.Now().After(deadline) {
			t.Fatalf("no word in the log of the deleted database: %q", logged.String())
		}
		time.Sleep(5 * time.Millisecond)
	}
	stop()
	if got := logged.String(); strings.Count(got, "cannot serve") != 1 || !strings.Contains(got, path+" was deleted") {
		t.Errorf("the log says %q, want once that %s was deleted", got, path)
	}
}
