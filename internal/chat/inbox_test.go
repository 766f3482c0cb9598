package chat_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sweatpants-go/sweatpants/agents"
	"github.com/sweatpants-go/sweatpants/elicit"
	"github.com/sweatpants-go/sweatpants/internal/apperr"
	"github.com/sweatpants-go/sweatpants/internal/chat"
	"github.com/sweatpants-go/sweatpants/internal/inbound"
	"github.com/sweatpants-go/sweatpants/internal/kindset"
	"github.com/sweatpants-go/sweatpants/internal/offline"
	"github.com/sweatpants-go/sweatpants/internal/pageview"
	"github.com/sweatpants-go/sweatpants/internal/registry"
	"github.com/sweatpants-go/sweatpants/internal/tree"
	"github.com/sweatpants-go/sweatpants/llm"
	"github.com/sweatpants-go/sweatpants/turn"
)

// echoAssistant replies to each message at once.
var echoAssistant = agents.Assistant{Name: "echo", Description: "Says what it was told.", Turn: func(ctx context.Context, message string) (string, error) {
	return "you said: " + message, nil
}}

// A message sent again with the id it was sent with — the page's resend of
// a request whose response was lost — is recorded once and runs one turn:
// sent again at once, after a restart of the server, and after the
// conversation moved to another branch. The pages are told, as news, that
// it was already sent.
func TestAMessageSentAgainWithItsIDIsRecordedOnce(t *testing.T) {
	s := startServer(t, registry.New(echoAssistant), offline.New())
	ctx := t.Context()
	conv, _ := s.svc.Create(ctx, "me", "echo")
	hello := inbound.Message{ID: "0b7e5c1a-2f4d-4e8a-9c61-3d2f8a7b6c50", Text: "hello"}
	counts := func(when string) {
		t.Helper()
		if got := len(s.nodes(conv.ID, tree.UserMessage)); got != 1 {
			t.Errorf("%s: %d user messages, want 1", when, got)
		}
		if got := len(s.nodes(conv.ID, tree.AssistantMessage)); got != 1 {
			t.Errorf("%s: %d replies, want 1 (one turn)", when, got)
		}
	}
	sendAgain := func(when string) {
		t.Helper()
		if sent, err := s.svc.SendMessage(ctx, "me", conv.ID, hello); err != nil || sent != inbound.SentTurn {
			t.Fatalf("%s: sent %q, err %v; want it taken as the turn it started", when, sent, err)
		}
	}

	if sent, err := s.svc.SendMessage(ctx, "me", conv.ID, hello); err != nil || sent != inbound.SentTurn {
		t.Fatalf("first send: sent %q, err %v", sent, err)
	}
	s.reply("me", conv.ID)
	page, _, err := s.svc.Subscribe(ctx, "me", conv.ID) // an open page, which the news is for
	if err != nil {
		t.Fatal(err)
	}
	sendAgain("again at once")
	v, _ := s.svc.View(ctx, "me", conv.ID)
	page.Close()
	if want := (pageview.Notice{Text: "Your message was already sent.", Info: true}); v.Notice != want {
		t.Errorf("the notice after the resend = %+v, want %+v", v.Notice, want)
	}
	counts("sent again at once")

	s.restart()
	sendAgain("after a restart")
	counts("sent again after a restart")

	// The conversation moves on to another branch: the message is edited.
	// Its first version, and its id, stay on the branch left.
	if err := s.svc.Edit(ctx, "me", conv.ID, s.message(conv.ID, "hello").ID, inbound.Message{Text: "hi"}); err != nil {
		t.Fatal(err)
	}
	s.reply("me", conv.ID)
	before := len(s.nodes(conv.ID, tree.UserMessage))
	sendAgain("from another branch")
	if got := len(s.nodes(conv.ID, tree.UserMessage)); got != before {
		t.Errorf("sent again from another branch: %d user messages, want %d", got, before)
	}
}

// The same id with other words is refused as a conflict, recording
// nothing: the first message stands. An id that is not one is refused as
// invalid, and a message without an id is a new message each time, as
// before ids.
func TestAMessageIDSentWithOtherWordsIsAConflict(t *testing.T) {
	s := startServer(t, registry.New(echoAssistant), offline.New())
	ctx := t.Context()
	conv, _ := s.svc.Create(ctx, "me", "echo")
	if _, err := s.svc.SendMessage(ctx, "me", conv.ID, inbound.Message{ID: "m-1", Text: "hello"}); err != nil {
		t.Fatal(err)
	}
	s.reply("me", conv.ID)
	all := func() int {
		nodes, err := s.db.Nodes(ctx, conv.ID)
		if err != nil {
			t.Fatal(err)
		}
		return len(nodes)
	}
	before := all()

	for _, tc := range []struct {
		name string
		m    inbound.Message
		want apperr.Code
	}{
		{"other words", inbound.Message{ID: "m-1", Text: "goodbye"}, apperr.Conflict},
		{"a space in the id", inbound.Message{ID: "m 2", Text: "hello"}, apperr.Invalid},
		{"a slash in the id", inbound.Message{ID: "../m", Text: "hello"}, apperr.Invalid},
		{"a 65-byte id", inbound.Message{ID: string(make65()), Text: "hello"}, apperr.Invalid},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := s.svc.SendMessage(ctx, "me", conv.ID, tc.m)
			if e, ok := errors.AsType[*apperr.Error](err); !ok || e.Code != tc.want || e.Message == "" {
				t.Fatalf("got %v, want code %v with a message", err, tc.want)
			}
			if got := all(); got != before {
				t.Errorf("%d nodes after the refusal, want %d", got, before)
			}
		})
	}

	if err := s.svc.Send(ctx, "me", conv.ID, "hello"); err != nil {
		t.Fatal(err)
	}
	s.reply("me", conv.ID)
	if got := len(s.nodes(conv.ID, tree.UserMessage)); got != 2 {
		t.Errorf("a message without an id: %d user messages, want 2", got)
	}
}

func make65() []byte {
	b := make([]byte, tree.MaxMessageIDLen+1)
	for i := range b {
		b[i] = 'a'
	}
	return b
}

// A message typed while a question waits is decided on once: sent again,
// it is what it was decided to be, and no second decision or side question
// is recorded, also after a restart.
func TestADecidedMessageSentAgainIsDecidedOnce(t *testing.T) {
	s := startServer(t, registry.New(asksOnce()), offline.New())
	ctx := t.Context()
	conv, _ := s.svc.Create(ctx, "me", "asker")
	s.send("me", conv.ID, "go")
	waitView(t, s.svc, "me", conv.ID, "the question", func(v pageview.View) bool { return pendingElicit(v) != nil })
	aside := inbound.Message{ID: "side-1", Text: "by the way, is it raining?"}
	for _, when := range []string{"first", "again", "after a restart"} {
		if when == "after a restart" {
			s.restart()
		}
		if sent, err := s.svc.SendMessage(ctx, "me", conv.ID, aside); err != nil || sent != inbound.SentSide {
			t.Fatalf("%s: sent %q, err %v; want %q", when, sent, err, inbound.SentSide)
		}
		if got := len(s.nodes(conv.ID, tree.Decision)); got != 1 {
			t.Errorf("%s: %d decisions, want 1", when, got)
		}
		if got := len(s.nodes(conv.ID, tree.SideQuestion)); got != 1 {
			t.Errorf("%s: %d side questions, want 1", when, got)
		}
	}
}

// asksOnce is an assistant that asks one question and ends when it is
// answered.
func asksOnce() agents.Assistant {
	return agents.Assistant{Name: "asker", Description: "Asks once.", Turn: func(ctx context.Context, message string) (string, error) {
		if _, err := turn.Ask(ctx, elicit.Form[struct {
			OK bool `json:"ok"`
		}](), "Go on?", struct{}{}); err != nil {
			return "", err
		}
		return "done", nil
	}}
}

// A message queued while a turn works is queued once: sent again while it
// waits, and once its turn has started with it, it is still the one
// message, and its turn runs once.
func TestAQueuedMessageSentAgainIsQueuedOnce(t *testing.T) {
	gate := make(chan struct{})
	var got []string
	slow := agents.Assistant{Name: "slow", Input: agents.Queue, Turn: func(ctx context.Context, m string) (string, error) {
		got = append(got, m)
		if len(got) == 1 {
			select {
			case <-gate:
			case <-ctx.Done():
				return "", ctx.Err()
			}
		}
		return "done: " + m, nil
	}}
	svc, db := newServiceWith(t, chat.Config{Assistants: registry.New(slow), Model: offline.New()})
	ctx := t.Context()
	conv, _ := svc.Create(ctx, "s", "slow")
	if err := svc.Send(ctx, "s", conv.ID, "first"); err != nil {
		t.Fatal(err)
	}
	second := inbound.Message{ID: "q-2", Text: "second"}
	for _, when := range []string{"first", "again"} {
		if sent, err := svc.SendMessage(ctx, "s", conv.ID, second); err != nil || sent != inbound.SentQueued {
			t.Fatalf("%s: sent %q, err %v; want queued", when, sent, err)
		}
	}
	if v, _ := svc.View(ctx, "s", conv.ID); !slices.Equal(v.Status.Queued, []string{"second"}) {
		t.Errorf("queued %q, want the message once", v.Status.Queued)
	}
	close(gate)
	waitView(t, svc, "s", conv.ID, "both turns", func(v pageview.View) bool {
		return len(v.Items) == 4 && lastItem(v).Kind == tree.AssistantMessage && !v.Status.Running
	})
	if sent, err := svc.SendMessage(ctx, "s", conv.ID, second); err != nil || sent != inbound.SentQueued {
		t.Fatalf("after its turn: sent %q, err %v; want queued, as it was", sent, err)
	}
	if n := len(nodesOf(t, db, conv.ID, tree.UserMessage)); n != 2 {
		t.Errorf("%d user messages, want 2", n)
	}
	if v, _ := svc.View(ctx, "s", conv.ID); len(v.Status.Queued) != 0 || v.Status.Running {
		t.Errorf("after the resend: queued %q, running %v; want nothing more", v.Status.Queued, v.Status.Running)
	}
}

// gatedDecider is a model that decides every message is a side question,
// once released, saying when it is asked to decide. Anything else it
// answers at once.
type gatedDecider struct {
	asked   chan struct{}
	release chan struct{}
}

func (gatedDecider) Name() string { return "gated" }

func (m gatedDecider) Complete(ctx context.Context, req llm.Request, _ func(string)) (llm.Response, error) {
	if !strings.Contains(req.Messages[0].Content, "Decide what the message is") {
		return llm.Response{Content: "No idea."}, nil
	}
	m.asked <- struct{}{}
	select {
	case <-m.release:
		return llm.Response{Content: `{"choice":"side","reason":"it asks something else"}`}, nil
	case <-ctx.Done():
		return llm.Response{}, ctx.Err()
	}
}

// A message sent again while the model still decides what it is waits for
// that decision and answers as the first send does: it is not decided on a
// second time.
func TestAMessageSentAgainWhileDecidedWaitsForTheDecision(t *testing.T) {
	model := gatedDecider{asked: make(chan struct{}, 16), release: make(chan struct{})}
	svc, db := newServiceWith(t, chat.Config{Assistants: registry.New(asksOnce()), Kinds: kindset.New(), Model: model})
	ctx := t.Context()
	conv, _ := svc.Create(ctx, "me", "asker")
	if err := svc.Send(ctx, "me", conv.ID, "go"); err != nil {
		t.Fatal(err)
	}
	waitView(t, svc, "me", conv.ID, "the question", func(v pageview.View) bool { return pendingElicit(v) != nil })
	aside := inbound.Message{ID: "side-1", Text: "is it raining?"}
	first := make(chan inbound.Sent, 1)
	go func() {
		sent, err := svc.SendMessage(ctx, "me", conv.ID, aside)
		if err != nil {
			t.Errorf("first send: %v", err)
		}
		first <- sent
	}()
	<-model.asked

	// While it is decided, the resend waits for it, and is not decided on.
	short, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
	defer cancel()
	if sent, err := svc.SendMessage(short, "me", conv.ID, aside); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("a resend while the model decides: sent %q, err %v; want it waiting for the decision", sent, err)
	}
	// Refused at once; were it decided on, the model would hold it until
	// the deadline.
	bounded, cancelBounded := context.WithTimeout(ctx, 5*time.Second)
	defer cancelBounded()
	if _, err := svc.SendMessage(bounded, "me", conv.ID, inbound.Message{ID: aside.ID, Text: "other words"}); apperr.CodeOf(err) != apperr.Conflict {
		t.Errorf("other words while the model decides: %v, want a conflict", err)
	}
	again := make(chan inbound.Sent, 1)
	go func() {
		sent, err := svc.SendMessage(ctx, "me", conv.ID, aside)
		if err != nil {
			t.Errorf("resend: %v", err)
		}
		again <- sent
	}()
	close(model.release)
	if got := <-first; got != inbound.SentSide {
		t.Errorf("first send: %q, want %q", got, inbound.SentSide)
	}
	if got := <-again; got != inbound.SentSide {
		t.Errorf("resend: %q, want %q, as the first", got, inbound.SentSide)
	}
	if n := len(model.asked); n != 0 {
		t.Errorf("the model was asked %d more times, want once in all", n)
	}
	if n := len(nodesOf(t, db, conv.ID, tree.Decision)); n != 1 {
		t.Errorf("%d decisions, want 1", n)
	}
}

// A message that joined the message before it, or interrupted the turn
// that worked, does so once: sent again, it answers as it did, and neither
// joins nor interrupts anything again.
func TestAMessageSentAgainWhileATurnWorksDoesWhatItDid(t *testing.T) {
	for _, tc := range []struct {
		window time.Duration
		want   inbound.Sent
	}{
		{0, inbound.SentJoined}, // the default window: sent at once, it joins
		{time.Nanosecond, inbound.SentInterrupted},
	} {
		t.Run(string(tc.want), func(t *testing.T) {
			busy := agents.Assistant{Name: "busy", Turn: func(ctx context.Context, m string) (string, error) {
				<-ctx.Done()
				return "", ctx.Err()
			}}
			svc, db := newServiceWith(t, chat.Config{Assistants: registry.New(busy), Model: offline.New(), BatchWindow: tc.window})
			ctx := t.Context()
			conv, _ := svc.Create(ctx, "s", "busy")
			if err := svc.Send(ctx, "s", conv.ID, "first"); err != nil {
				t.Fatal(err)
			}
			second := inbound.Message{ID: "m-2", Text: "second"}
			for _, when := range []string{"first", "again"} {
				if sent, err := svc.SendMessage(ctx, "s", conv.ID, second); err != nil || sent != tc.want {
					t.Fatalf("%s: sent %q, err %v; want %q", when, sent, err, tc.want)
				}
			}
			if n := len(nodesOf(t, db, conv.ID, tree.UserMessage)); n != 2 {
				t.Errorf("%d user messages, want 2", n)
			}
			if n := len(nodesOf(t, db, conv.ID, tree.Stopped)); tc.want == inbound.SentInterrupted && n != 1 {
				t.Errorf("%d turns stopped, want 1", n)
			}
			if err := svc.Stop(ctx, "s", conv.ID); err != nil {
				t.Fatal(err)
			}
		})
	}
}
