package chat_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/sweatpants-go/sweatpants/backend/agents"
	"github.com/sweatpants-go/sweatpants/backend/chat"
	"github.com/sweatpants-go/sweatpants/backend/elicit"
	"github.com/sweatpants-go/sweatpants/backend/llm/offline"
	"github.com/sweatpants-go/sweatpants/backend/tree"
	"github.com/sweatpants-go/sweatpants/backend/turn"
)

// checkIn is an agent whose code a deploy changes: release 1 asks "Go
// on?"; release 2 reports progress first, guarded by turn.Version when
// versioned. Its reply says which path the turn took.
func checkIn(release int, versioned bool) agents.Assistant {
	return agents.Assistant{Name: "check-in", Description: "Asks before it goes on.", Turn: func(ctx context.Context, message string) (string, error) {
		v := 0
		if release >= 2 {
			v = 1
			if versioned {
				v = turn.Version(ctx, "notify-before-ask", 1)
			}
			if v >= 1 {
				if err := turn.Notify(ctx, "Looking up your booking", -1); err != nil {
					return "", err
				}
			}
		}
		if _, err := turn.Ask(ctx, elicit.Form[struct {
			OK bool `json:"ok"`
		}](), "Go on?", struct{}{}); err != nil {
			return "", err
		}
		return fmt.Sprintf("done on path %d", v), nil
	}}
}

// askedAndWaiting starts a turn of the service's agent and returns the
// conversation and the question it waits on.
func askedAndWaiting(t *testing.T, svc *chat.Service) (conv, eid string) {
	t.Helper()
	c, err := svc.Create(t.Context(), "me", "")
	if err != nil {
		t.Fatal(err)
	}
	if err := svc.Send(t.Context(), "me", c.ID, "check me in"); err != nil {
		t.Fatal(err)
	}
	v := waitView(t, svc, "me", c.ID, "the question", func(v chat.View) bool { return pendingElicit(v) != nil })
	return c.ID, pendingElicit(v).Request.ID
}

// answerAndReply answers question eid and returns the turn's reply.
func answerAndReply(t *testing.T, svc *chat.Service, conv, eid string) chat.Item {
	t.Helper()
	if err := svc.Answer(t.Context(), "me", conv, eid, accept(`{"ok":true}`)); err != nil {
		t.Fatalf("answer %s: %v", eid, err)
	}
	v := waitView(t, svc, "me", conv, "the turn's end", func(v chat.View) bool { return !v.Status.Running })
	return lastItem(v)
}

// A deploy that adds a call before a question a turn waits on breaks the
// turn when it is not versioned; guarded by turn.Version, the turn
// recorded before the change resumes on the old path, and a turn started
// after the deploy takes the new one.
func TestVersionKeepsTheOldPathForTurnsRecordedBeforeTheChange(t *testing.T) {
	t.Run("not versioned: the waiting turn diverges", func(t *testing.T) {
		s := startServer(t, agents.NewRegistry(checkIn(1, false)), offline.New())
		conv, _ := askedAndWaiting(t, s.svc)
		s.reg = agents.NewRegistry(checkIn(2, false))
		s.restart()
		v := waitView(t, s.svc, "me", conv, "the turn to end", func(v chat.View) bool { return !v.Status.Running })
		if it := lastItem(v); it.Kind != tree.TurnError || !strings.Contains(it.Details, "replay diverged at call") {
			t.Fatalf("last item %+v, want the turn to fail on the divergence", it)
		}
	})
	t.Run("versioned: the waiting turn resumes on the old path", func(t *testing.T) {
		s := startServer(t, agents.NewRegistry(checkIn(1, false)), offline.New())
		old, oldQ := askedAndWaiting(t, s.svc)
		s.reg = agents.NewRegistry(checkIn(2, true))
		s.restart()
		if it := answerAndReply(t, s.svc, old, oldQ); it.Kind != tree.AssistantMessage || it.Text != "done on path 0" {
			t.Fatalf("the turn recorded before the change ended with %+v, want the old path's reply", it)
		}
		if n := len(s.nodes(old, tree.Notify)); n != 0 {
			t.Errorf("the old turn recorded %d progress reports, want none (the old path)", n)
		}
		if n := len(s.nodes(old, tree.Value)); n != 0 {
			t.Errorf("the old turn recorded %d values, want no version marker", n)
		}

		fresh, freshQ := askedAndWaiting(t, s.svc)
		if it := answerAndReply(t, s.svc, fresh, freshQ); it.Text != "done on path 1" {
			t.Fatalf("a turn after the deploy ended with %+v, want the new path's reply", it)
		}
		if n := len(s.nodes(fresh, tree.Notify)); n != 1 {
			t.Errorf("the new turn recorded %d progress reports, want 1", n)
		}
	})
}

// A turn recorded with the change's marker takes the new path again when it
// is replayed, and its marker shows in the tree as a value.
func TestVersionRecordedIsReplayed(t *testing.T) {
	s := startServer(t, agents.NewRegistry(checkIn(2, true)), offline.New())
	conv, eid := askedAndWaiting(t, s.svc)
	markers := s.nodes(conv, tree.Value)
	if len(markers) != 1 {
		t.Fatalf("%d values recorded, want the version marker", len(markers))
	}
	rec, _ := tree.Decode[tree.ValueRecord](markers[0])
	if rec.Name != "version" || rec.Change != "notify-before-ask" || string(rec.Value) != "1" {
		t.Errorf("marker %+v, want version 1 of notify-before-ask", rec)
	}

	s.restart()
	if it := answerAndReply(t, s.svc, conv, eid); it.Kind != tree.AssistantMessage || it.Text != "done on path 1" {
		t.Fatalf("the replayed turn ended with %+v, want the new path's reply", it)
	}
	if n := len(s.nodes(conv, tree.Value)); n != 1 {
		t.Errorf("%d version markers after the replay, want the one recorded", n)
	}
	if n := len(s.nodes(conv, tree.Notify)); n != 1 {
		t.Errorf("%d progress reports after the replay, want the one recorded", n)
	}
}
