package chat_test

import (
	"context"
	"log/slog"
	"strings"
	"testing"

	"github.com/sweatpants-go/sweatpants/agents"
	"github.com/sweatpants-go/sweatpants/elicit"
	"github.com/sweatpants-go/sweatpants/internal/offline"
	"github.com/sweatpants-go/sweatpants/internal/pageview"
	"github.com/sweatpants-go/sweatpants/internal/registry"
	"github.com/sweatpants-go/sweatpants/internal/tree"
	"github.com/sweatpants-go/sweatpants/turn"
)

func sameLines(t *testing.T, what string, got, want []string) {
	t.Helper()
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("%s:\n got %q\nwant %q", what, got, want)
	}
}

// A turn that a restart interrupted is replayed from its record: the log
// lines it wrote before are found there, not written again, and the ones
// after are written once, in order among its calls.
func TestAReplayedTurnWritesItsLogLinesOnce(t *testing.T) {
	asker := agents.Assistant{Name: "asker", Turn: func(ctx context.Context, msg string) (string, error) {
		turn.Log(ctx, slog.LevelInfo, "before the question")
		res, err := turn.Ask(ctx, elicit.Form[struct {
			OK bool `json:"ok"`
		}](), "Go on?", struct{}{})
		if err != nil {
			return "", err
		}
		turn.Log(ctx, slog.LevelInfo, "after the answer", "action", res.Action)
		return "done", nil
	}}
	s := startServer(t, registry.New(asker), offline.New())
	conv, _ := s.svc.Create(t.Context(), "me", "")
	if err := s.svc.Send(t.Context(), "me", conv.ID, "go"); err != nil {
		t.Fatal(err)
	}
	v := waitView(t, s.svc, "me", conv.ID, "the question", func(v pageview.View) bool { return pendingElicit(v) != nil })
	eid := pendingElicit(v).Request.ID

	s.restart()
	v = waitView(t, s.svc, "me", conv.ID, "the resumed question", func(v pageview.View) bool { return pendingElicit(v) != nil })
	if err := s.svc.Answer(t.Context(), "me", conv.ID, eid, accept(`{"ok":true}`)); err != nil {
		t.Fatal(err)
	}
	waitView(t, s.svc, "me", conv.ID, "the reply", func(v pageview.View) bool { return !v.Status.Running && lastItem(v).Text == "done" })

	var got []string
	all, err := s.db.Nodes(t.Context(), conv.ID)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range all {
		switch n.Kind {
		case tree.Log:
			rec, err := tree.Decode[tree.LogRecord](n)
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, n.Ref+" "+rec.Message)
		case tree.ElicitRequest, tree.ElicitResponse:
			got = append(got, n.Ref+" "+string(n.Kind))
		}
	}
	turn := strings.Split(eid, "-")[0]
	sameLines(t, "the turn's record", got, []string{
		turn + "-log1 before the question",
		eid + " elicit",
		eid + " response",
		turn + "-log2 after the answer",
	})
}

// A turn recorded before its code wrote log lines resumes all the same:
// lines do not take the ids of calls, so the calls recorded are found where
// they were.
func TestATurnRecordedWithoutLogLinesResumesWithThem(t *testing.T) {
	ask := func(ctx context.Context) (string, error) {
		res, err := turn.Ask(ctx, elicit.Form[struct {
			OK bool `json:"ok"`
		}](), "Go on?", struct{}{})
		return string(res.Action), err
	}
	before := agents.Assistant{Name: "asker", Turn: func(ctx context.Context, msg string) (string, error) { return ask(ctx) }}
	s := startServer(t, registry.New(before), offline.New())
	conv, _ := s.svc.Create(t.Context(), "me", "")
	if err := s.svc.Send(t.Context(), "me", conv.ID, "go"); err != nil {
		t.Fatal(err)
	}
	v := waitView(t, s.svc, "me", conv.ID, "the question", func(v pageview.View) bool { return pendingElicit(v) != nil })
	eid := pendingElicit(v).Request.ID

	s.reg = registry.New(agents.Assistant{Name: "asker", Turn: func(ctx context.Context, msg string) (string, error) {
		turn.Log(ctx, slog.LevelInfo, "asking")
		a, err := ask(ctx)
		turn.Log(ctx, slog.LevelInfo, "asked")
		return a, err
	}})
	s.restart()
	v = waitView(t, s.svc, "me", conv.ID, "the resumed question", func(v pageview.View) bool { return pendingElicit(v) != nil })
	if got := pendingElicit(v).Request.ID; got != eid {
		t.Fatalf("the resumed question is %s, want %s", got, eid)
	}
	if err := s.svc.Answer(t.Context(), "me", conv.ID, eid, accept(`{"ok":true}`)); err != nil {
		t.Fatal(err)
	}
	v = waitView(t, s.svc, "me", conv.ID, "the reply", func(v pageview.View) bool { return !v.Status.Running })
	if it := lastItem(v); it.Kind != tree.AssistantMessage || it.Text != "accept" {
		t.Errorf("last item = %+v, want the reply", it)
	}
	if n := len(s.nodes(conv.ID, tree.Log)); n != 2 {
		t.Errorf("%d log lines recorded, want 2", n)
	}
}
