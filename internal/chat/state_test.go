package chat_test

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/sweatpants-go/sweatpants/agents"
	"github.com/sweatpants-go/sweatpants/elicit"
	"github.com/sweatpants-go/sweatpants/internal/chat"
	"github.com/sweatpants-go/sweatpants/internal/inbound"
	"github.com/sweatpants-go/sweatpants/internal/offline"
	"github.com/sweatpants-go/sweatpants/internal/pageview"
	"github.com/sweatpants-go/sweatpants/internal/registry"
	"github.com/sweatpants-go/sweatpants/internal/store/storetest"
	"github.com/sweatpants-go/sweatpants/internal/tree"
	"github.com/sweatpants-go/sweatpants/llm"
	"github.com/sweatpants-go/sweatpants/turn"
)

// noteTaker is an assistant with state: each message is remembered by its
// agent's tool (which counts its runs), and the reply is every note
// remembered so far; a message that starts "ask " asks first whether to
// keep them, naming them.
func noteTaker(runs *atomic.Int32) agents.Assistant {
	agent := agents.New("notes", "Keeps notes.")
	notes := agents.NewState(agent, "notes", []string{})
	remember := agents.NewTool(agent, "remember", "Remember a note", func(ctx context.Context, note string) (int, error) {
		runs.Add(1)
		var n int
		err := notes.Update(ctx, func(list *[]string) error {
			*list = append(*list, note)
			n = len(*list)
			return nil
		})
		return n, err
	})
	goOn := elicit.Form[struct {
		OK bool `json:"ok"`
	}]()
	return agents.Assistant{Name: "notes", Description: "Keeps notes.", Turn: func(ctx context.Context, message string) (string, error) {
		if _, err := remember.Call(ctx, message); err != nil {
			return "", err
		}
		if strings.HasPrefix(message, "ask ") { // a question made of what was read
			list, err := notes.Get(ctx)
			if err != nil {
				return "", err
			}
			if _, err := turn.Ask(ctx, goOn, "Keep "+strings.Join(list, ", ")+"?", struct{}{}); err != nil {
				return "", err
			}
		}
		list, err := notes.Get(ctx)
		return strings.Join(list, ", "), err
	}}
}

// say sends text and returns the reply.
func say(t *testing.T, svc *chat.Service, conv, text string) string {
	t.Helper()
	if err := svc.Send(t.Context(), "me", conv, text); err != nil {
		t.Fatal(err)
	}
	return replyOf(t, svc, conv)
}

// replyOf waits for the running turn's end and returns its reply.
func replyOf(t *testing.T, svc *chat.Service, conv string) string {
	t.Helper()
	v := waitView(t, svc, "me", conv, "the reply", func(v pageview.View) bool { return !v.Status.Running })
	return lastItem(v).Text
}

// messageNode is the node of the user's message text on the branch shown.
func messageNode(t *testing.T, svc *chat.Service, conv, text string) int64 {
	t.Helper()
	v, err := svc.View(t.Context(), "me", conv)
	if err != nil {
		t.Fatal(err)
	}
	for _, it := range v.Items {
		if it.Kind == tree.UserMessage && it.Text == text {
			return it.ID
		}
	}
	t.Fatalf("no message %q shown", text)
	return 0
}

// An agent's state is the branch's: after an edit the agent remembers
// what that branch said, and a switch back brings back the other's.
func TestAnAgentsStateFollowsTheBranch(t *testing.T) {
	var runs atomic.Int32
	s := startServer(t, registry.New(noteTaker(&runs)), offline.New())
	c, err := s.svc.Create(t.Context(), "me", "notes")
	if err != nil {
		t.Fatal(err)
	}
	for _, step := range []struct{ say, want string }{{"Lisbon", "Lisbon"}, {"Porto", "Lisbon, Porto"}} {
		if got := say(t, s.svc, c.ID, step.say); got != step.want {
			t.Fatalf("after %q the agent remembers %q, want %q", step.say, got, step.want)
		}
	}
	porto := messageNode(t, s.svc, c.ID, "Porto")
	if err := s.svc.Edit(t.Context(), "me", c.ID, porto, inbound.Message{Text: "Faro"}); err != nil {
		t.Fatal(err)
	}
	if got := replyOf(t, s.svc, c.ID); got != "Lisbon, Faro" {
		t.Fatalf("after the edit the agent remembers %q, want this branch's notes", got)
	}
	if err := s.svc.Switch(t.Context(), "me", c.ID, porto); err != nil {
		t.Fatal(err)
	}
	if got := say(t, s.svc, c.ID, "Braga"); got != "Lisbon, Porto, Braga" {
		t.Fatalf("back on the first branch the agent remembers %q, want that branch's notes", got)
	}
	if got := len(s.nodes(c.ID, tree.StateChange)); got != 4 {
		t.Errorf("%d changes of state recorded, want one a note", got)
	}
}

// A turn resumed after a restart reads its state as the first run did,
// from the record: the tool that changed it is not run again, and the
// change is not recorded twice.
func TestAResumedTurnReadsItsStateFromTheRecord(t *testing.T) {
	var runs atomic.Int32
	s := startServer(t, registry.New(noteTaker(&runs)), offline.New())
	c, q := askedToKeep(t, s)
	eid := q.ID

	s.restart()
	if err := s.svc.Answer(t.Context(), "me", c.ID, eid, accept(`{"ok":true}`)); err != nil {
		t.Fatal(err)
	}
	if got := replyOf(t, s.svc, c.ID); got != "Lisbon, ask Porto" { // and the question asked again the same
		t.Errorf("the resumed turn read %q, want the notes as the first run left them", got)
	}
	if got := runs.Load(); got != 2 {
		t.Errorf("the tool ran %d times, want 2: not again on replay", got)
	}
	if got := len(s.nodes(c.ID, tree.StateChange)); got != 2 {
		t.Errorf("%d changes of state recorded, want 2", got)
	}
}

// A state is its agent's: code running as another agent is refused it.
func TestAStateIsReachedOnlyThroughItsAgent(t *testing.T) {
	agent := agents.New("notes", "Keeps notes.")
	notes := agents.NewState(agent, "notes", []string{})
	peek := agents.Assistant{Name: "other", Description: "Peeks.", Turn: func(ctx context.Context, message string) (string, error) {
		_, err := notes.Get(ctx)
		if err == nil {
			return "read another agent's state", nil
		}
		return err.Error(), nil
	}}
	s := startServer(t, registry.New(peek), offline.New())
	c, err := s.svc.Create(t.Context(), "me", "other")
	if err != nil {
		t.Fatal(err)
	}
	if got := say(t, s.svc, c.ID, "hi"); !strings.Contains(got, "reached only through its tools") {
		t.Errorf("another agent reading the state got %q, want a refusal", got)
	}
}

// The check before a deploy reads a suspended turn's state as the turn
// will: the question it waits on, made of what it read, is found the same.
func TestTheCheckReadsAStateAsTheTurnWill(t *testing.T) {
	var runs atomic.Int32
	s := startServer(t, registry.New(noteTaker(&runs)), offline.New())
	askedToKeep(t, s)
	if got := checkWith(t, s, registry.New(noteTaker(&runs))); got.Turns != 1 || len(got.Diverged) != 0 {
		t.Errorf("unchanged code: %+v, want the turn to resume", got)
	}
	if got := runs.Load(); got != 2 {
		t.Errorf("the tool ran %d times, want 2: never in the check", got)
	}
}

// askedToKeep has the note taker remember Lisbon, then Porto with a
// question before its reply, and returns the conversation and the question
// it waits on, made of the notes it read.
func askedToKeep(t *testing.T, s *server) (tree.Conversation, elicit.Request) {
	t.Helper()
	c, err := s.svc.Create(t.Context(), "me", "notes")
	if err != nil {
		t.Fatal(err)
	}
	say(t, s.svc, c.ID, "Lisbon")
	if err := s.svc.Send(t.Context(), "me", c.ID, "ask Porto"); err != nil {
		t.Fatal(err)
	}
	v := waitView(t, s.svc, "me", c.ID, "the question", func(v pageview.View) bool { return pendingElicit(v) != nil })
	q := pendingElicit(v).Request
	if q.Message != "Keep Lisbon, ask Porto?" {
		t.Fatalf("the question is %q, want it made of the notes read", q.Message)
	}
	return c, q
}

// The state is the branch's across a rewind past a compaction and a
// recovery from the reflog: changing the first turn's answer, after a
// later turn summarized it for the model, gives that branch's state alone,
// and recovering the later turn's state brings its state back.
func TestAnAgentsStateFollowsARewindPastACompactionAndARecovery(t *testing.T) {
	agent := agents.New("cities", "Keeps cities.")
	cities := agents.NewState(agent, "cities", []string{})
	city := elicit.Form[struct {
		City string `json:"city"`
	}]()
	keeper := agents.Assistant{Name: "cities", Description: "Keeps cities.", Turn: func(ctx context.Context, message string) (string, error) {
		history, err := turn.History(ctx) // summarized past the limit
		if err != nil {
			return "", err
		}
		if _, err := turn.Sample(ctx, llm.Request{Messages: history}); err != nil {
			return "", err
		}
		got, err := turn.Ask(ctx, city, "Which city?", struct{}{})
		if err != nil {
			return "", err
		}
		if err := cities.Update(ctx, func(list *[]string) error { *list = append(*list, got.Content.City); return nil }); err != nil {
			return "", err
		}
		list, err := cities.Get(ctx)
		return strings.Join(list, ", "), err
	}}
	s := startServer(t, registry.New(keeper), offline.New())
	s.stop()
	db := storetest.OpenAt(t, s.path)
	s.db, s.svc = db, chat.New(chat.Config{Store: db, Assistants: s.reg, Model: s.llm, CompactTokens: 60})
	c, err := s.svc.Create(t.Context(), "me", "cities")
	if err != nil {
		t.Fatal(err)
	}
	var first string
	for i, name := range []string{"Lisbon", "Porto"} {
		s.send("me", c.ID, strings.Repeat("word ", 40))
		q := waitQuestion(t, s, c.ID, "Which city?")
		if i == 0 {
			first = q.ID
		}
		if err := s.svc.Answer(t.Context(), "me", c.ID, q.ID, accept(`{"city":"`+name+`"}`)); err != nil {
			t.Fatal(err)
		}
		s.reply("me", c.ID)
	}
	if sums := s.nodes(c.ID, tree.Summary); len(sums) == 0 {
		t.Fatal("no compaction: the test asks for a rewind past one")
	}
	porto := s.reflogEntry(c.ID, s.message(c.ID, strings.TrimSpace(strings.Repeat("word ", 40))).ID)

	if err := s.svc.ChangeAnswer(t.Context(), "me", c.ID, first, accept(`{"city":"Faro"}`)); err != nil {
		t.Fatal(err)
	}
	if got := s.reply("me", c.ID); got != "Faro" {
		t.Errorf("after the rewind the state is %q, want that branch's alone", got)
	}

	if err := s.svc.Recover(t.Context(), "me", c.ID, porto); err != nil {
		t.Fatal(err)
	}
	s.send("me", c.ID, "one more")
	q := waitQuestion(t, s, c.ID, "Which city?")
	if err := s.svc.Answer(t.Context(), "me", c.ID, q.ID, accept(`{"city":"Braga"}`)); err != nil {
		t.Fatal(err)
	}
	if got := s.reply("me", c.ID); got != "Lisbon, Porto, Braga" {
		t.Errorf("after the recovery the state is %q, want the recovered branch's", got)
	}
}
