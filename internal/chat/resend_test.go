package chat_test

import (
	"context"
	"errors"
	"testing"

	"github.com/sweatpants-go/sweatpants/agents"
	"github.com/sweatpants-go/sweatpants/elicit"
	"github.com/sweatpants-go/sweatpants/internal/apperr"
	"github.com/sweatpants-go/sweatpants/internal/offline"
	"github.com/sweatpants-go/sweatpants/internal/pageview"
	"github.com/sweatpants-go/sweatpants/internal/registry"
	"github.com/sweatpants-go/sweatpants/turn"
)

// An answer sent again after the server restarted — the page's resend of a
// request whose response was lost — is the answer recorded: accepted, with
// nothing recorded again, and the pages told, as news, that it was already
// recorded. Another answer is still refused.
func TestAnAnswerSentAgainAfterARestartIsTakenAsRecorded(t *testing.T) {
	asker := agents.Assistant{Name: "asker", Description: "Asks once.", Turn: func(ctx context.Context, message string) (string, error) {
		if _, err := turn.Ask(ctx, elicit.Form[struct {
			OK bool `json:"ok"`
		}](), "Go on?", struct{}{}); err != nil {
			return "", err
		}
		return "done", nil
	}}
	s := startServer(t, registry.New(asker), offline.New())
	ctx := t.Context()
	conv, _ := s.svc.Create(ctx, "me", "")
	if err := s.svc.Send(ctx, "me", conv.ID, "go"); err != nil {
		t.Fatal(err)
	}
	v := waitView(t, s.svc, "me", conv.ID, "the question", func(v pageview.View) bool { return pendingElicit(v) != nil })
	eid := pendingElicit(v).Request.ID
	if err := s.svc.Answer(ctx, "me", conv.ID, eid, accept(`{"ok":true}`)); err != nil {
		t.Fatal(err)
	}
	before, err := s.db.Nodes(ctx, conv.ID)
	if err != nil {
		t.Fatal(err)
	}

	s.restart()
	if err := s.svc.Answer(ctx, "me", conv.ID, eid, accept(`{"ok": true}`)); err != nil {
		t.Fatalf("the same answer again after a restart: %v, want it accepted", err)
	}
	waitView(t, s.svc, "me", conv.ID, "the reply", func(v pageview.View) bool { return !v.Status.Running && lastItem(v).Text == "done" })
	after, err := s.db.Nodes(ctx, conv.ID)
	if err != nil {
		t.Fatal(err)
	}
	count := 0
	for _, n := range after[len(before):] {
		if n.Ref == eid {
			count++
		}
	}
	if count != 0 {
		t.Errorf("the resend recorded %d nodes for the question again", count)
	}

	err = s.svc.Answer(ctx, "me", conv.ID, eid, accept(`{"ok":false}`))
	if e, ok := errors.AsType[*apperr.Error](err); !ok || e.Code != apperr.Conflict {
		t.Errorf("another answer after the restart: %v, want a conflict", err)
	}
}
