package store

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sweatpants-go/sweatpants/internal/apperr"
	"github.com/sweatpants-go/sweatpants/internal/tree"
)

// holdWriter starts a write that stays open until the returned function is
// called, so that the writes after it queue.
func holdWriter(t *testing.T, db *DB) (release func()) {
	t.Helper()
	started, hold := make(chan struct{}), make(chan struct{})
	done := make(chan error, 1)
	go func() {
		done <- db.tx(context.Background(), func(context.Context, *txn) error {
			close(started)
			<-hold
			return nil
		})
	}()
	<-started
	return func() {
		close(hold)
		if err := <-done; err != nil {
			t.Errorf("the held write: %v", err)
		}
	}
}

// queued waits until n writes wait behind the one under way.
func queued(t *testing.T, db *DB, n int) {
	t.Helper()
	waitFor(t, 10*time.Second, fmt.Sprintf("%d writes to queue", n), func() bool {
		db.writes.mu.Lock()
		defer db.writes.mu.Unlock()
		return len(db.writes.waiting) == n
	})
}

func TestWritesThatQueueAreCommittedTogether(t *testing.T) {
	db := MustOpen(t)
	const n = 20
	convs := make([]tree.Conversation, n)
	for i := range convs {
		convs[i] = newConversation(t, db, "s", fmt.Sprintf("c%d", i))
	}
	release := holdWriter(t, db)
	before := db.ckpt.commits.Load()

	var wg sync.WaitGroup
	appended := make([]tree.Node, n)
	errs := make([]error, n)
	for i, c := range convs {
		wg.Go(func() {
			appended[i], errs[i] = db.Append(context.Background(), tree.Node{Conversation: c.ID, Kind: tree.UserMessage,
				Payload: json.RawMessage(fmt.Sprintf(`{"text":"message %d"}`, i))}, tree.AppendOptions{})
		})
	}
	queued(t, db, n)
	release()
	wg.Wait()

	if got := db.ckpt.commits.Load() - before; got != 2 {
		t.Errorf("%d commits, want 2: the held write, then the %d that queued behind it together", got, n)
	}
	for i, c := range convs {
		if errs[i] != nil {
			t.Fatalf("append to %s: %v", c.ID, errs[i])
		}
		got, err := db.Conversation(context.Background(), "s", c.ID)
		if err != nil {
			t.Fatal(err)
		}
		if got.Head != appended[i].ID {
			t.Errorf("%s: HEAD = %d, want the appended node %d", c.ID, got.Head, appended[i].ID)
		}
	}
}

func TestOneFailingWriteOfAGroupFailsAlone(t *testing.T) {
	db := MustOpen(t)
	good := newConversation(t, db, "s", "good")
	other := newConversation(t, db, "s", "other")
	foreign, err := db.Append(context.Background(), tree.Node{Conversation: other.ID, Kind: tree.UserMessage, Payload: json.RawMessage(`{"text":"x"}`)}, tree.AppendOptions{})
	if err != nil {
		t.Fatal(err)
	}
	release := holdWriter(t, db)

	var wg sync.WaitGroup
	var okErr, badErr error
	var ok tree.Node
	wg.Go(func() {
		ok, okErr = db.Append(context.Background(), tree.Node{Conversation: good.ID, Kind: tree.UserMessage, Payload: json.RawMessage(`{"text":"kept"}`)}, tree.AppendOptions{})
	})
	queued(t, db, 1)
	wg.Go(func() {
		// A fork from a node of another conversation is refused.
		_, badErr = db.Append(context.Background(), tree.Node{Conversation: good.ID, Parent: foreign.ID, Kind: tree.UserMessage, Payload: json.RawMessage(`{"text":"refused"}`)},
			tree.AppendOptions{Fork: true})
	})
	queued(t, db, 2)
	release()
	wg.Wait()

	if okErr != nil {
		t.Errorf("the good write failed with its group: %v", okErr)
	}
	if apperr.CodeOf(badErr) != apperr.NotFound {
		t.Errorf("the bad write: err = %v, want not found", badErr)
	}
	nodes, err := db.Nodes(context.Background(), good.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(nodes) != 1 || nodes[0].ID != ok.ID {
		t.Errorf("nodes of %s = %+v, want only the good write's", good.ID, nodes)
	}
}

func TestAWriteThatPanicsFailsAloneAndTheQueueGoesOn(t *testing.T) {
	db := MustOpen(t)
	c := newConversation(t, db, "s", "c")
	release := holdWriter(t, db)
	var wg sync.WaitGroup
	var panicked, appended error
	var kept tree.Node
	wg.Go(func() {
		panicked = db.tx(context.Background(), func(context.Context, *txn) error { panic("broken write") })
	})
	queued(t, db, 1)
	wg.Go(func() {
		kept, appended = db.Append(context.Background(), tree.Node{Conversation: c.ID, Kind: tree.UserMessage, Payload: json.RawMessage(`{"text":"kept"}`)}, tree.AppendOptions{})
	})
	queued(t, db, 2)
	release()
	wg.Wait()
	if panicked == nil || !strings.Contains(panicked.Error(), "broken write") {
		t.Errorf("the panicking write: err = %v, want its panic as an error", panicked)
	}
	if appended != nil {
		t.Errorf("the write grouped with it: %v", appended)
	}
	// The queue has a leader again: the next write goes through.
	if _, err := db.Append(context.Background(), tree.Node{Conversation: c.ID, Parent: kept.ID, Kind: tree.UserMessage, Payload: json.RawMessage(`{"text":"after"}`)}, tree.AppendOptions{}); err != nil {
		t.Errorf("a write after: %v", err)
	}
}
