package store

import (
	"context"
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/sweatpants-go/sweatpants/backend/apperr"
	"github.com/sweatpants-go/sweatpants/backend/tree"
)

// MustOpen opens a database in a fresh temporary directory.
func MustOpen(tb testing.TB) *DB {
	tb.Helper()
	db, err := Open(context.Background(), filepath.Join(tb.TempDir(), "data", "test.db"), Options{})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { db.Close() })
	return db
}

func newConversation(t *testing.T, db *DB, session, id string) tree.Conversation {
	t.Helper()
	ctx := context.Background()
	if err := db.EnsureSession(ctx, session); err != nil {
		t.Fatal(err)
	}
	c, err := db.CreateConversation(ctx, tree.Conversation{ID: id, Session: session, Agent: "concierge"})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestAppendAndReadBack(t *testing.T) {
	db := MustOpen(t)
	ctx := context.Background()
	c := newConversation(t, db, "s1", "c1")
	var ids []int64
	for _, text := range []string{"hello", "world"} {
		n, err := db.Append(ctx, tree.Node{Conversation: c.ID, Kind: tree.UserMessage, Payload: json.RawMessage(`{"text":"` + text + `"}`)}, false)
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, n.ID)
	}
	nodes, err := db.Nodes(ctx, c.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(nodes) != 2 {
		t.Fatalf("got %d nodes, want 2", len(nodes))
	}
	if got, want := nodes[1].Parent, ids[0]; got != want {
		t.Errorf("second node's parent = %d, want %d (each node hangs from HEAD)", got, want)
	}
	got, err := db.Conversation(ctx, "s1", c.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Head != ids[1] {
		t.Errorf("head = %d, want %d", got.Head, ids[1])
	}
	if path := tree.Path(nodes, got.Head); len(path) != 2 || string(path[0].Payload) != `{"text":"hello"}` {
		t.Errorf("path = %+v", path)
	}
}

func TestConversationOwnedBySession(t *testing.T) {
	db := MustOpen(t)
	newConversation(t, db, "owner", "c1")
	_, err := db.Conversation(context.Background(), "intruder", "c1")
	if apperr.CodeOf(err) != apperr.NotFound {
		t.Errorf("another session got %v, want not found", err)
	}
}

func TestUniqueAnswerIsConflict(t *testing.T) {
	db := MustOpen(t)
	ctx := context.Background()
	c := newConversation(t, db, "s", "c")
	answer := tree.Node{Conversation: c.ID, Kind: tree.ElicitResponse, Ref: "e1", Payload: json.RawMessage(`{"action":"accept"}`)}
	first, err := db.Append(ctx, answer, true)
	if err != nil {
		t.Fatal(err)
	}
	answer.Payload = json.RawMessage(`{"action":"decline"}`)
	if _, err := db.Append(ctx, answer, true); apperr.CodeOf(err) != apperr.Conflict {
		t.Fatalf("second answer: got %v, want conflict", err)
	}
	nodes, _ := db.Nodes(ctx, c.ID)
	if len(nodes) != 1 || nodes[0].ID != first.ID || string(nodes[0].Payload) != `{"action":"accept"}` {
		t.Errorf("after a refused second answer the record is %+v, want only the first answer", nodes)
	}
}

func TestSurvivesReopen(t *testing.T) {
	path := filepath.Join(t.TempDir(), "app.db")
	ctx := context.Background()
	db, err := Open(ctx, path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := db.EnsureSession(ctx, "s"); err != nil {
		t.Fatal(err)
	}
	if _, err := db.CreateConversation(ctx, tree.Conversation{ID: "c", Session: "s", Agent: "a"}); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Append(ctx, tree.Node{Conversation: "c", Kind: tree.UserMessage, Payload: json.RawMessage(`{}`)}, false); err != nil {
		t.Fatal(err)
	}
	db.Close()

	db, err = Open(ctx, path, Options{Durability: PowerSafe})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	nodes, err := db.Nodes(ctx, "c")
	if err != nil || len(nodes) != 1 {
		t.Errorf("after reopening: %d nodes, %v; want 1", len(nodes), err)
	}
	v, err := db.Version(ctx)
	if err != nil || v < 1 {
		t.Errorf("version = %d, %v; want >= 1 (migrations applied once, not again)", v, err)
	}
}
