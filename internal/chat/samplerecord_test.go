package chat_test

import (
	"context"
	"database/sql"
	"strings"
	"testing"

	"github.com/sweatpants-go/sweatpants/agents"
	"github.com/sweatpants-go/sweatpants/elicit"
	"github.com/sweatpants-go/sweatpants/internal/pageview"
	"github.com/sweatpants-go/sweatpants/internal/registry"
	"github.com/sweatpants-go/sweatpants/internal/tree"
	"github.com/sweatpants-go/sweatpants/llm"
	"github.com/sweatpants-go/sweatpants/turn"
)

// okModel answers every call "ok".
type okModel struct{}

func (okModel) Name() string { return "ok" }

func (okModel) Complete(context.Context, llm.Request, func(string)) (llm.Response, error) {
	return llm.Response{Content: "ok", FinishReason: "stop"}, nil
}

// threeCalls is an assistant whose turn makes three model calls, each
// continuing the one before by two messages as a loop's steps do, then
// asks a yes/no. change, when set, changes the third call's request as
// new code would.
func threeCalls(change func(*llm.Request)) agents.Assistant {
	tools := []llm.ToolSpec{{Name: "look", Description: "Look around", Parameters: []byte(`{"type":"object"}`)}}
	return agents.Assistant{Name: "caller", Turn: func(ctx context.Context, msg string) (string, error) {
		msgs := []llm.Message{{Role: llm.System, Content: "Be brief."}, {Role: llm.User, Content: msg}}
		for i, more := range [][2]string{{"one", "two"}, {"three", "four"}, {}} {
			req := llm.Request{Messages: msgs, Tools: tools}
			if i == 2 && change != nil {
				req.Messages = append([]llm.Message(nil), msgs...)
				change(&req)
			}
			if _, err := turn.Sample(ctx, req); err != nil {
				return "", err
			}
			msgs = append(msgs, llm.Message{Role: llm.Assistant, Content: more[0]}, llm.Message{Role: llm.User, Content: more[1]})
		}
		if _, err := turn.Ask(ctx, elicit.Confirm, "Go on?", elicit.ConfirmInput{}); err != nil {
			return "", err
		}
		return "done", nil
	}}
}

// startThreeCalls runs threeCalls up to its question and returns the
// server, the conversation and the third model call's id.
func startThreeCalls(t *testing.T) (*server, string, string, string) {
	t.Helper()
	s := startServer(t, registry.New(threeCalls(nil)), okModel{})
	conv, _ := s.svc.Create(t.Context(), "me", "caller")
	if err := s.svc.Send(t.Context(), "me", conv.ID, "go"); err != nil {
		t.Fatal(err)
	}
	v := waitView(t, s.svc, "me", conv.ID, "the question", func(v pageview.View) bool { return pendingElicit(v) != nil })
	samples := s.nodes(conv.ID, tree.Sample)
	if len(samples) != 3 {
		t.Fatalf("%d model calls recorded, want 3", len(samples))
	}
	return s, conv.ID, pendingElicit(v).Request.ID, samples[2].Ref
}

// A turn's later model calls are recorded as what is new in their
// requests, against the call before; the whole requests read back as
// they were sent.
func TestALaterModelCallIsRecordedAsWhatIsNew(t *testing.T) {
	s, conv, _, _ := startThreeCalls(t)
	nodes := s.nodes(conv, tree.Sample)
	for i, n := range nodes[1:] {
		rec, err := tree.Decode[tree.SampleRecord](n)
		if err != nil {
			t.Fatal(err)
		}
		if rec.Base != nodes[i].ID || rec.Kept != 2+2*i || !rec.SameTools || len(rec.Request.Messages) != 2 || len(rec.Request.Tools) != 0 {
			t.Errorf("call %d is recorded against node %d keeping %d messages (same tools %v), with %d messages and %d tools; want against node %d keeping %d, the same tools, 2 new messages and no tools",
				i+2, rec.Base, rec.Kept, rec.SameTools, len(rec.Request.Messages), len(rec.Request.Tools), nodes[i].ID, 2+2*i)
		}
	}
	whole := s.samples(conv)
	if m := whole[2].Request.Messages; len(m) != 6 || m[0].Content != "Be brief." || m[5].Content != "four" || len(whole[2].Request.Tools) != 1 {
		t.Errorf("the third call reads back as %+v, want the six messages sent and the tool", whole[2].Request)
	}
}

// Replay compares each call's whole request with the record, rebuilt from
// what is new in it: a change in a message the record keeps from the call
// before diverges as surely as one in a new message, or in the tools, both
// in the check before a deploy and in the turn resumed after a restart.
func TestAChangedRequestDivergesThoughRecordedAsWhatIsNew(t *testing.T) {
	tests := []struct {
		name   string
		change func(*llm.Request)
	}{
		{"an earlier message", func(r *llm.Request) { r.Messages[2].Content = "uno" }},
		{"a new message", func(r *llm.Request) { r.Messages[5].Content = "fourteen" }},
		{"a message more", func(r *llm.Request) { r.Messages = append(r.Messages, llm.Message{Role: llm.User, Content: "five"}) }},
		{"a message less", func(r *llm.Request) { r.Messages = r.Messages[:5] }},
		{"the tools", func(r *llm.Request) { r.Tools = nil }},
		{"the model", func(r *llm.Request) { r.Model = "other" }},
	}
	s, conv, _, third := startThreeCalls(t)
	if got := checkWith(t, s, registry.New(threeCalls(nil))); got.Turns != 1 || len(got.Diverged) != 0 {
		t.Fatalf("unchanged code: %+v, want the turn to resume", got)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := checkWith(t, s, registry.New(threeCalls(tt.change)))
			if len(got.Diverged) != 1 || got.Diverged[0].Call != third || got.Diverged[0].Made != "a model call" {
				t.Errorf("check: %+v, want a divergence at the third model call, %s", got, third)
			}
		})
	}
	t.Run("resumed", func(t *testing.T) {
		s.reg = registry.New(threeCalls(tests[0].change))
		s.restart()
		v := waitView(t, s.svc, "me", conv, "the turn to fail", func(v pageview.View) bool { return !v.Status.Running })
		if it := lastItem(v); !it.Diverged || !strings.Contains(it.Details, "replay diverged at call "+third) {
			t.Errorf("last item = %+v, want the turn diverged at call %s", it, third)
		}
	})
}

// A turn whose model calls were recorded whole, as every call was before
// calls were recorded as what is new, still resumes, and goes on.
func TestModelCallsRecordedWholeStillReplay(t *testing.T) {
	s, conv, eid, _ := startThreeCalls(t)
	whole := s.samples(conv)
	nodes := s.nodes(conv, tree.Sample)
	s.stop()
	db, err := sql.Open("sqlite", s.path)
	if err != nil {
		t.Fatal(err)
	}
	for i, n := range nodes {
		if _, err := db.Exec(`UPDATE nodes SET payload = ? WHERE id = ?`, []byte(tree.MustEncode(whole[i])), n.ID); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	s.start()
	if rec, _ := tree.Decode[tree.SampleRecord](s.nodes(conv, tree.Sample)[2]); rec.Base != 0 || len(rec.Request.Messages) != 6 {
		t.Fatalf("the third call's record is %+v, want it whole", rec)
	}
	if got := checkWith(t, s, registry.New(threeCalls(nil))); got.Turns != 1 || len(got.Diverged) != 0 {
		t.Errorf("check: %+v, want the turn to resume", got)
	}
	if err := s.svc.Answer(t.Context(), "me", conv, eid, accept(`{"yes":true}`)); err != nil {
		t.Fatal(err)
	}
	v := waitView(t, s.svc, "me", conv, "the reply", func(v pageview.View) bool { return !v.Status.Running })
	if it := lastItem(v); it.Text != "done" {
		t.Errorf("last item = %+v, want the reply", it)
	}
}
