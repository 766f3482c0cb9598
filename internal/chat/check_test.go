package chat_test

import (
	"context"
	"strings"
	"testing"

	"github.com/sweatpants-go/sweatpants/agents"
	"github.com/sweatpants-go/sweatpants/elicit"
	"github.com/sweatpants-go/sweatpants/internal/chat"
	"github.com/sweatpants-go/sweatpants/internal/deploycheck"
	"github.com/sweatpants-go/sweatpants/internal/inbound"
	"github.com/sweatpants-go/sweatpants/internal/offline"
	"github.com/sweatpants-go/sweatpants/internal/pageview"
	"github.com/sweatpants-go/sweatpants/internal/registry"
	"github.com/sweatpants-go/sweatpants/internal/store/storetest"
	"github.com/sweatpants-go/sweatpants/llm/llmtest"
	"github.com/sweatpants-go/sweatpants/llm/openai"
	"github.com/sweatpants-go/sweatpants/turn"
)

// checkWith checks the server's database against the assistants of reg,
// with the server stopped, as a check before a deploy runs.
func checkWith(t *testing.T, s *server, reg *registry.Assistants) deploycheck.Checked {
	t.Helper()
	s.stop()
	defer s.start()
	db := storetest.OpenAt(t, s.path)
	defer db.Close()
	checked, err := deploycheck.CheckSuspended(t.Context(), chat.Config{Store: db, Assistants: reg, Model: offline.New()})
	if err != nil {
		t.Fatal(err)
	}
	return checked
}

// A check replays a turn up to the question it waits on without running
// what the record holds: the finished tool is not run again and the model
// is not called, whether the turn resumes or diverges; a changed question
// is named with the call it is asked at.
func TestTheCheckRunsNothingTheRecordHolds(t *testing.T) {
	sideEffects.Store(0)
	fake := llmtest.NewServer(t, llmtest.Text("a fine booking"))
	model := openai.New(openai.Config{APIKey: "k", BaseURL: fake.URL, Model: "m"})
	s := startServer(t, registry.New(bookingAgent(func() string { return "Confirm?" })), model)
	conv, _ := s.svc.Create(t.Context(), "me", "")
	if err := s.svc.Send(t.Context(), "me", conv.ID, "hotel"); err != nil {
		t.Fatal(err)
	}
	v := waitView(t, s.svc, "me", conv.ID, "the question", func(v pageview.View) bool { return pendingElicit(v) != nil })
	eid := pendingElicit(v).Request.ID

	if got := checkWith(t, s, registry.New(bookingAgent(func() string { return "Confirm?" }))); got.Turns != 1 || len(got.Diverged) != 0 {
		t.Errorf("unchanged code: %+v, want the one turn to resume", got)
	}
	got := checkWith(t, s, registry.New(bookingAgent(func() string { return "Are you sure?" })))
	want := deploycheck.Divergence{Conversation: conv.ID, Title: "hotel", Assistant: "booker", Turn: 1, Call: eid,
		Recorded: `elicit form "Confirm?"`, Made: `elicit form "Are you sure?"`}
	if got.Turns != 1 || len(got.Diverged) != 1 || got.Diverged[0] != want {
		t.Errorf("changed question: %+v, want %+v", got, want)
	}
	if n := sideEffects.Load(); n != 1 {
		t.Errorf("the tool's body ran %d times, want once (when it was recorded)", n)
	}
	if n := len(fake.Requests()); n != 1 {
		t.Errorf("the model was called %d times, want once (when it was recorded)", n)
	}
}

// A side question's turn waiting on its own question is checked too, apart
// from the flow's.
func TestTheCheckReplaysSideTurns(t *testing.T) {
	asker := func(sideQuestion string) agents.Assistant {
		return agents.Assistant{Name: "asker", Turn: func(ctx context.Context, _ string) (string, error) {
			_, err := turn.Ask(ctx, elicit.Confirm, "Book it?", elicit.ConfirmInput{})
			return "booked", err
		}, Side: func(ctx context.Context, m string) (string, error) {
			_, err := turn.Ask(ctx, elicit.Confirm, sideQuestion, elicit.ConfirmInput{})
			return "looked up", err
		}}
	}
	s := startServer(t, registry.New(asker("Shall I look that up?")), offline.New())
	conv, _ := s.svc.Create(t.Context(), "s", "asker")
	if err := s.svc.Send(t.Context(), "s", conv.ID, "go"); err != nil {
		t.Fatal(err)
	}
	waitView(t, s.svc, "s", conv.ID, "the flow's question", func(v pageview.View) bool { return pendingElicit(v) != nil })
	if _, err := s.svc.SendMessage(t.Context(), "s", conv.ID, inbound.Message{Text: "is it raining?"}); err != nil {
		t.Fatal(err)
	}
	v := waitView(t, s.svc, "s", conv.ID, "the side question's question", func(v pageview.View) bool {
		sides := sideItems(v)
		return len(sides) == 1 && len(sides[0].Asks) == 1
	})
	side := sideItems(v)[0]

	if got := checkWith(t, s, registry.New(asker("Shall I look that up?"))); got.Turns != 2 || len(got.Diverged) != 0 {
		t.Errorf("unchanged code: %+v, want both turns to resume", got)
	}
	got := checkWith(t, s, registry.New(asker("Shall I search?")))
	if len(got.Diverged) != 1 {
		t.Fatalf("side question changed: %+v, want its turn alone listed", got)
	}
	if d := got.Diverged[0]; !d.Side || d.Turn != side.ID || d.Call != side.Asks[0].Elicit.Request.ID || !strings.Contains(d.Made, "Shall I search?") {
		t.Errorf("listed %+v, want the side question %d diverging at its question %s", d, side.ID, side.Asks[0].Elicit.Request.ID)
	}
}

// A turn whose code now ends before the question it waits on, and one whose
// assistant is no longer in the build, are listed too, saying so.
func TestTheCheckListsTurnsThatCannotGoOn(t *testing.T) {
	asks := agents.Assistant{Name: "asks", Turn: func(ctx context.Context, _ string) (string, error) {
		_, err := turn.Ask(ctx, elicit.Confirm, "Go on?", elicit.ConfirmInput{})
		return "went on", err
	}}
	s := startServer(t, registry.New(asks), offline.New())
	conv, _ := s.svc.Create(t.Context(), "s", "asks")
	if err := s.svc.Send(t.Context(), "s", conv.ID, "go"); err != nil {
		t.Fatal(err)
	}
	v := waitView(t, s.svc, "s", conv.ID, "the question", func(v pageview.View) bool { return pendingElicit(v) != nil })
	eid := pendingElicit(v).Request.ID

	answers := agents.Assistant{Name: "asks", Turn: func(context.Context, string) (string, error) { return "no need to ask", nil }}
	got := checkWith(t, s, registry.New(answers))
	if len(got.Diverged) != 1 || got.Diverged[0].Call != eid || got.Diverged[0].Recorded != `elicit confirm "Go on?", waiting for its answer` || got.Diverged[0].Made != "the end of the turn" {
		t.Errorf("code that no longer asks: %+v", got)
	}
	other := agents.Assistant{Name: "other", Turn: answers.Turn}
	got = checkWith(t, s, registry.New(other))
	if len(got.Diverged) != 1 || got.Diverged[0].Call != "" || got.Diverged[0].Made != "no assistant of that name" {
		t.Errorf("an assistant gone: %+v", got)
	}
}
