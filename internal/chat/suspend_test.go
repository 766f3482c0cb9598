package chat_test

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/sweatpants-go/sweatpants/examples/demo"
	"github.com/sweatpants-go/sweatpants/internal/chat"
	"github.com/sweatpants-go/sweatpants/internal/kindset"
	"github.com/sweatpants-go/sweatpants/internal/offline"
	"github.com/sweatpants-go/sweatpants/internal/pageview"
	"github.com/sweatpants-go/sweatpants/internal/registry"
	"github.com/sweatpants-go/sweatpants/internal/store"
	"github.com/sweatpants-go/sweatpants/internal/tree"
)

// newSuspendingService starts a service with the demo agents and the
// offline model that suspends a waiting turn as soon as nobody watches it.
func newSuspendingService(t *testing.T) (*chat.Service, *store.DB) {
	t.Helper()
	return newServiceWith(t, chat.Config{Assistants: registry.New(demo.Agents(demo.Options{})...), Kinds: kindset.New(demo.Kinds()...), Model: offline.New(),
		SuspendAfter: new(time.Duration(0))})
}

// A turn waiting unwatched is suspended: the conversation leaves memory and
// its goroutine ends. Each answer brings it back by replay, and the flow
// goes on as if it had never left, recording nothing twice.
func TestAWaitingTurnNobodyWatchesIsSuspendedAndResumedByReplay(t *testing.T) {
	svc, db := newSuspendingService(t)
	baseline := runtime.NumGoroutine()

	conv, _ := svc.Create(t.Context(), "me", "survey")
	if err := svc.Send(t.Context(), "me", conv.ID, "3"); err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= 3; i++ {
		waitFor(t, fmt.Sprintf("question %d asked, the conversation out of memory and its goroutine ended", i), func() bool {
			// Goroutines first: a query with a cancellable context starts
			// watchers of its own, which end a moment after it returns.
			ended := runtime.NumGoroutine() <= baseline
			nodes, _ := db.Nodes(context.Background(), conv.ID)
			return ended && countKind(nodes, tree.ElicitRequest) == i && svc.Loaded() == 0
		})
		v, err := svc.View(t.Context(), "me", conv.ID)
		if err != nil {
			t.Fatal(err)
		}
		e := pendingElicit(v)
		if e == nil || !strings.HasPrefix(e.Request.Message, fmt.Sprintf("Question %d", i)) {
			t.Fatalf("after a suspension the pending question is %+v, want question %d", e, i)
		}
		if err := svc.Answer(t.Context(), "me", conv.ID, e.Request.ID, accept(fmt.Sprintf(`{"answer":"a%d"}`, i))); err != nil {
			t.Fatalf("answer %d: %v", i, err)
		}
	}
	v := waitView(t, svc, "me", conv.ID, "the reply", func(v pageview.View) bool { return !v.Status.Running })
	if got := lastItem(v).Text; got != "Thanks — all 3 answers recorded." {
		t.Errorf("reply = %q", got)
	}
	nodes, _ := db.Nodes(t.Context(), conv.ID)
	if q, r := countKind(nodes, tree.ElicitRequest), countKind(nodes, tree.ElicitResponse); q != 3 || r != 3 {
		t.Errorf("%d questions and %d answers recorded, want 3 and 3", q, r)
	}
}

// An open page keeps the turn in memory.
func TestAWatchedTurnIsNotSuspended(t *testing.T) {
	svc, _ := newSuspendingService(t)
	conv, _ := svc.Create(t.Context(), "me", "survey")
	sub, _, err := svc.Subscribe(t.Context(), "me", conv.ID)
	if err != nil {
		t.Fatal(err)
	}
	if err := svc.Send(t.Context(), "me", conv.ID, "2"); err != nil {
		t.Fatal(err)
	}
	waitView(t, svc, "me", conv.ID, "the question", func(v pageview.View) bool { return pendingElicit(v) != nil })
	if n := svc.Loaded(); n != 1 {
		t.Errorf("%d conversations loaded while a page is open, want 1", n)
	}
	sub.Close()
	waitFor(t, "suspension once the page closed", func() bool { return svc.Loaded() == 0 })
}

func countKind(nodes []tree.Node, k tree.Kind) int {
	n := 0
	for _, x := range nodes {
		if x.Kind == k {
			n++
		}
	}
	return n
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(2 * time.Millisecond)
	}
}
