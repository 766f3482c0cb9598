package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"strings"
	"sync"
	"testing"

	"github.com/sweatpants-go/sweatpants/internal/tree"
)

// Several processes on one database (the nodes of a cluster on
// PostgreSQL; on SQLite, a tool beside the server) agree: they migrate it
// once and move a conversation's HEAD one after the other, each from where
// the one before left it. (An application's own writes agree as well:
// examples/flights/flightsdb books a seat once across nodes.)
func TestNodesSharingADatabaseAgree(t *testing.T) { contract(t, testNodesSharingADatabaseAgree) }

func testNodesSharingADatabaseAgree(t *testing.T, target string) {
	ctx := context.Background()
	nodes := make([]*DB, 3)
	all(t, len(nodes), func(i int) error {
		db, err := Open(ctx, target, Options{})
		if err == nil {
			t.Cleanup(func() { db.Close() })
			nodes[i] = db
		}
		return err
	})
	names, err := fs.Glob(migrations, "migrations/"+nodes[0].eng.String()+"/*.sql")
	if err != nil || len(names) == 0 {
		t.Fatalf("the migrations: %v, %v", names, err)
	}
	newest, _, _ := strings.Cut(path.Base(names[len(names)-1]), "_")
	for i, db := range nodes {
		if v, err := db.Version(ctx); err != nil || fmt.Sprintf("%03d", v) != newest {
			t.Errorf("node %d: version %d, %v; want %s, the newest migration, applied once", i, v, err, newest)
		}
	}

	c := newConversation(t, nodes[0], "s", "c")
	root, err := nodes[0].Append(ctx, tree.Node{Conversation: c.ID, Kind: tree.UserMessage, Payload: json.RawMessage(`{"text":"hi"}`)}, tree.AppendOptions{})
	if err != nil {
		t.Fatal(err)
	}
	const moves = 8
	all(t, len(nodes), func(i int) error {
		for range moves {
			n := tree.Node{Conversation: c.ID, Parent: root.ID, Kind: tree.UserMessage, Payload: json.RawMessage(`{"text":"again"}`)}
			if _, err := nodes[i].Append(ctx, n, tree.AppendOptions{Fork: true, Log: &tree.Move{Action: tree.ActEdit}}); err != nil {
				return err
			}
			if _, err := nodes[i].MoveHead(ctx, c.ID, root.ID, tree.Move{Action: tree.ActSwitch}); err != nil {
				return err
			}
		}
		return nil
	})
	log, err := nodes[1].Reflog(ctx, c.ID)
	if err != nil || len(log) != 2*moves*len(nodes) {
		t.Fatalf("reflog: %d entries, %v; want %d, one per move", len(log), err, 2*moves*len(nodes))
	}
	for i := len(log) - 1; i > 0; i-- {
		if older, newer := log[i], log[i-1]; newer.Prev != older.Head {
			t.Fatalf("reflog entry %d moved HEAD from %d, but the entry before left it at %d: two nodes decided from one HEAD", newer.ID, newer.Prev, older.Head)
		}
	}
}

// all runs fn(0) … fn(n-1) at once and fails the test on their errors.
func all(t *testing.T, n int, fn func(i int) error) {
	t.Helper()
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { errs[i] = fn(i) })
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
}
