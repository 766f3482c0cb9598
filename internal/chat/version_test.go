package chat_test

import (
	"context"
	"strings"
	"testing"

	"github.com/sweatpants-go/sweatpants/agents"
	"github.com/sweatpants-go/sweatpants/elicit"
	"github.com/sweatpants-go/sweatpants/internal/chat"
	"github.com/sweatpants-go/sweatpants/internal/chat/chattest"
	"github.com/sweatpants-go/sweatpants/internal/offline"
	"github.com/sweatpants-go/sweatpants/internal/pageview"
	"github.com/sweatpants-go/sweatpants/internal/registry"
	"github.com/sweatpants-go/sweatpants/internal/tree"
	"github.com/sweatpants-go/sweatpants/internal/words"
	"github.com/sweatpants-go/sweatpants/llm"
	"github.com/sweatpants-go/sweatpants/llm/llmtest"
	"github.com/sweatpants-go/sweatpants/llm/openai"
	"github.com/sweatpants-go/sweatpants/turn"
)

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
	v := waitView(t, svc, "me", c.ID, "the question", func(v pageview.View) bool { return pendingElicit(v) != nil })
	return c.ID, pendingElicit(v).Request.ID
}

// answerAndReply answers question eid and returns the turn's reply.
func answerAndReply(t *testing.T, svc *chat.Service, conv, eid string) pageview.Item {
	t.Helper()
	if err := svc.Answer(t.Context(), "me", conv, eid, accept(`{"ok":true}`)); err != nil {
		t.Fatalf("answer %s: %v", eid, err)
	}
	v := waitView(t, svc, "me", conv, "the turn's end", func(v pageview.View) bool { return !v.Status.Running })
	return lastItem(v)
}

// A deploy that adds a call before a question a turn waits on breaks the
// turn when it is not versioned; guarded by turn.Version, the turn
// recorded before the change resumes on the old path, and a turn started
// after the deploy takes the new one.
func TestVersionKeepsTheOldPathForTurnsRecordedBeforeTheChange(t *testing.T) {
	t.Run("not versioned: the waiting turn diverges", func(t *testing.T) {
		s := startServer(t, registry.New(chattest.CheckIn(1, false)), offline.New())
		conv, _ := askedAndWaiting(t, s.svc)
		s.reg = registry.New(chattest.CheckIn(2, false))
		s.restart()
		v := waitView(t, s.svc, "me", conv, "the turn to end", func(v pageview.View) bool { return !v.Status.Running })
		if it := lastItem(v); it.Kind != tree.TurnError || !strings.Contains(it.Details, "replay diverged at call") {
			t.Fatalf("last item %+v, want the turn to fail on the divergence", it)
		}
	})
	t.Run("versioned: the waiting turn resumes on the old path", func(t *testing.T) {
		s := startServer(t, registry.New(chattest.CheckIn(1, false)), offline.New())
		old, oldQ := askedAndWaiting(t, s.svc)
		s.reg = registry.New(chattest.CheckIn(2, true))
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
	s := startServer(t, registry.New(chattest.CheckIn(2, true)), offline.New())
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

// A turn that diverges anyway (a change deployed without turn.Version)
// tells its user in plain words and is marked as such; Retry starts it
// again from the user's message, on a new branch, where the new code asks
// afresh and answers.
func TestADivergedTurnIsToldAndStartsAgainOnRetry(t *testing.T) {
	s := startServer(t, registry.New(chattest.CheckIn(1, false)), offline.New())
	conv, old := askedAndWaiting(t, s.svc)
	s.reg = registry.New(chattest.CheckIn(2, false))
	s.restart()

	v := waitView(t, s.svc, "me", conv, "the turn to end", func(v pageview.View) bool { return !v.Status.Running })
	failed := lastItem(v)
	if failed.Kind != tree.TurnError || !failed.Diverged || failed.Text != words.DivergedText || !strings.Contains(failed.Details, "replay diverged at call "+old) {
		t.Fatalf("last item %+v, want the turn's end saying the assistant changed, with the call in its details", failed)
	}
	if pendingElicit(v) != nil {
		t.Error("the old question still waits; the diverged turn cannot take its answer")
	}

	if err := s.svc.Retry(t.Context(), "me", conv, failed.ID); err != nil {
		t.Fatal(err)
	}
	v = waitView(t, s.svc, "me", conv, "the question asked afresh", func(v pageview.View) bool {
		e := pendingElicit(v)
		return e != nil && e.Request.ID != old
	})
	if first := v.Items[0]; first.Kind != tree.UserMessage || first.Text != "check me in" || first.Branch == nil {
		t.Errorf("first item %+v, want the message again, on a new branch beside the old one", first)
	}
	if it := answerAndReply(t, s.svc, conv, pendingElicit(v).Request.ID); it.Kind != tree.AssistantMessage || it.Text != "done on path 1" {
		t.Errorf("the retried turn ended with %+v, want the new code's answer", it)
	}
}

// planner asks for a city, asks the model for suggestions (going on without
// them when the call fails) and asks to go on; release 2 reports progress
// first, unversioned.
func planner(release int) agents.Assistant {
	return agents.Assistant{Name: "planner", Turn: func(ctx context.Context, message string) (string, error) {
		if release >= 2 {
			if err := turn.Notify(ctx, "Planning", -1); err != nil {
				return "", err
			}
		}
		city, err := turn.Ask(ctx, elicit.Form[struct {
			City string `json:"city"`
		}](), "Which city?", struct{}{})
		if err != nil {
			return "", err
		}
		note := "no suggestions"
		if resp, err := turn.Sample(ctx, llm.Request{Messages: []llm.Message{{Role: llm.User, Content: "Suggest sights in " + city.Content.City}}}); err == nil {
			note = resp.Content
		}
		if _, err := turn.Ask(ctx, elicit.Form[struct {
			OK bool `json:"ok"`
		}](), "Go on?", struct{}{}); err != nil {
			return "", err
		}
		return "planned " + city.Content.City + ": " + note, nil
	}}
}

// Retry of a diverged turn starts from the message even when the turn had
// a failed model call, which Retry otherwise resumes before: resuming
// there would replay the record the changed code no longer follows, and
// fail again.
func TestRetryOfADivergedTurnStartsFromTheMessage(t *testing.T) {
	fake := llmtest.NewServer(t, llmtest.Fail(400, "no suggestions today"), llmtest.Text("see the fjords"))
	s := startServer(t, registry.New(planner(1)), openai.New(openai.Config{APIKey: "k", BaseURL: fake.URL, Model: "m"}))
	conv, err := s.svc.Create(t.Context(), "me", "")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.svc.Send(t.Context(), "me", conv.ID, "plan Oslo"); err != nil {
		t.Fatal(err)
	}
	v := waitView(t, s.svc, "me", conv.ID, "the city", func(v pageview.View) bool { return pendingElicit(v) != nil })
	if err := s.svc.Answer(t.Context(), "me", conv.ID, pendingElicit(v).Request.ID, accept(`{"city":"Oslo"}`)); err != nil {
		t.Fatal(err)
	}
	waitView(t, s.svc, "me", conv.ID, "go on?", func(v pageview.View) bool {
		e := pendingElicit(v)
		return e != nil && e.Request.Message == "Go on?"
	})
	s.reg = registry.New(planner(2))
	s.restart()
	v = waitView(t, s.svc, "me", conv.ID, "the turn to diverge", func(v pageview.View) bool { return lastItem(v).Diverged })

	diverged := lastItem(v).ID
	if err := s.svc.Retry(t.Context(), "me", conv.ID, diverged); err != nil {
		t.Fatal(err)
	}
	v = waitView(t, s.svc, "me", conv.ID, "the retried turn to ask or fail", func(v pageview.View) bool {
		return pendingElicit(v) != nil || (lastItem(v).Kind == tree.TurnError && lastItem(v).ID != diverged)
	})
	if e := pendingElicit(v); e == nil || e.Request.Message != "Which city?" {
		t.Fatalf("after retry: pending %+v, last item %+v; want the turn started again from the message, asking the city", e, lastItem(v))
	}
	if err := s.svc.Answer(t.Context(), "me", conv.ID, pendingElicit(v).Request.ID, accept(`{"city":"Bergen"}`)); err != nil {
		t.Fatal(err)
	}
	v = waitView(t, s.svc, "me", conv.ID, "go on? again", func(v pageview.View) bool {
		e := pendingElicit(v)
		return e != nil && e.Request.Message == "Go on?"
	})
	if it := answerAndReply(t, s.svc, conv.ID, pendingElicit(v).Request.ID); it.Text != "planned Bergen: see the fjords" {
		t.Errorf("the retried turn ended with %+v", it)
	}
}
