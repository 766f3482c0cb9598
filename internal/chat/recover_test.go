package chat_test

import (
	"context"
	"testing"

	"github.com/sweatpants-go/sweatpants/agents"
	"github.com/sweatpants-go/sweatpants/internal/inbound"
	"github.com/sweatpants-go/sweatpants/internal/offline"
	"github.com/sweatpants-go/sweatpants/internal/pageview"
	"github.com/sweatpants-go/sweatpants/internal/registry"
	"github.com/sweatpants-go/sweatpants/internal/tree"
)

// Recovering a state while a turn works stops the turn first: it is halted
// before HEAD moves, records nothing after, and the recovered state is what
// the page shows. The halted turn is parked, not ended: recovering its own
// state later resumes it.
func TestRecoverWhileATurnWorksStopsItFirst(t *testing.T) {
	started, halted := make(chan struct{}, 2), make(chan struct{}, 2)
	worker := agents.Assistant{Name: "worker", Description: "Works on \"work\" until stopped.",
		Turn: func(ctx context.Context, message string) (string, error) {
			if message != "work" {
				return "Hello.", nil
			}
			started <- struct{}{}
			<-ctx.Done()
			halted <- struct{}{}
			return "", ctx.Err()
		}}
	s := startServer(t, registry.New(worker), offline.New())
	ctx := t.Context()
	conv, err := s.svc.Create(ctx, "me", "worker")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.svc.Send(ctx, "me", conv.ID, "hi"); err != nil {
		t.Fatal(err)
	}
	waitView(t, s.svc, "me", conv.ID, "the reply", func(v pageview.View) bool { return !v.Status.Running && lastItem(v).Text == "Hello." })
	reflog, err := s.db.Reflog(ctx, conv.ID)
	if err != nil || len(reflog) == 0 {
		t.Fatalf("reflog: %v, %v", reflog, err)
	}
	greeted := reflog[0] // the move that sent "hi"
	first := s.nodes(conv.ID, tree.UserMessage)[0]
	if err := s.svc.Edit(ctx, "me", conv.ID, first.ID, inbound.Message{Text: "work"}); err != nil {
		t.Fatal(err)
	}
	<-started
	before, err := s.db.Nodes(ctx, conv.ID)
	if err != nil {
		t.Fatal(err)
	}

	if err := s.svc.Recover(ctx, "me", conv.ID, greeted.ID); err != nil {
		t.Fatalf("recover while the turn works: %v", err)
	}
	<-halted
	v, err := s.svc.View(ctx, "me", conv.ID)
	if err != nil {
		t.Fatal(err)
	}
	if v.Status.Running || lastItem(v).Text != "Hello." {
		t.Errorf("after recovering: running %v, last item %q; want the greeting, nothing running", v.Status.Running, lastItem(v).Text)
	}
	after, err := s.db.Nodes(ctx, conv.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(after) != len(before) {
		t.Errorf("the halted turn recorded %d nodes after the recovery", len(after)-len(before))
	}

	// Recovering the halted turn's state resumes it where it was.
	reflog, err = s.db.Reflog(ctx, conv.ID)
	if err != nil {
		t.Fatal(err)
	}
	var edited tree.RefEntry
	for _, e := range reflog {
		if e.Action == tree.ActEdit {
			edited = e
			break
		}
	}
	if err := s.svc.Recover(ctx, "me", conv.ID, edited.ID); err != nil {
		t.Fatal(err)
	}
	<-started
	waitView(t, s.svc, "me", conv.ID, "the resumed turn", func(v pageview.View) bool { return v.Status.Running })
}
