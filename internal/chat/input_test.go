package chat_test

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sweatpants-go/sweatpants/agents"
	"github.com/sweatpants-go/sweatpants/examples/demo"
	"github.com/sweatpants-go/sweatpants/internal/chat"
	"github.com/sweatpants-go/sweatpants/internal/inbound"
	"github.com/sweatpants-go/sweatpants/internal/offline"
	"github.com/sweatpants-go/sweatpants/internal/pageview"
	"github.com/sweatpants-go/sweatpants/internal/registry"
	"github.com/sweatpants-go/sweatpants/internal/tree"
	"github.com/sweatpants-go/sweatpants/llm/llmtest"
	"github.com/sweatpants-go/sweatpants/llm/openai"
)

func TestAMessageWhileTheReplyStreamsInterruptsIt(t *testing.T) {
	fake := llmtest.NewServer(t, llmtest.Reply{Chunks: []string{"Once upon a time"}, Hold: true}, llmtest.Text("Four."))
	svc, db := newService(t, openai.New(openai.Config{APIKey: "k", BaseURL: fake.URL, Model: "m"}))
	conv, _ := svc.Create(t.Context(), "s", "assistant")
	if err := svc.Send(t.Context(), "s", conv.ID, "tell me a story"); err != nil {
		t.Fatal(err)
	}
	waitView(t, svc, "s", conv.ID, "the reply streaming", func(v pageview.View) bool { return v.Status.Draft == "Once upon a time" })
	sent, err := svc.SendMessage(t.Context(), "s", conv.ID, inbound.Message{Text: "never mind: what is 2+2?"})
	if err != nil || sent != inbound.SentInterrupted {
		t.Fatalf("sent %q, err %v; want %q", sent, err, inbound.SentInterrupted)
	}
	v := waitView(t, svc, "s", conv.ID, "the new reply", func(v pageview.View) bool { return lastItem(v).Kind == tree.AssistantMessage })
	want := []tree.Kind{tree.UserMessage, tree.Stopped, tree.UserMessage, tree.AssistantMessage}
	if got := kinds(v); !slices.Equal(got, want) {
		t.Fatalf("items = %v, want %v", got, want)
	}
	if got := v.Items[1].Text; !strings.Contains(got, "new message") {
		t.Errorf("the interrupted turn says %q", got)
	}
	if got := lastItem(v).Text; got != "Four." {
		t.Errorf("the reply = %q", got)
	}
	// The second turn's model call was given the conversation with both
	// messages, and nothing of the interrupted reply.
	msgs := fake.Requests()[1].Messages
	var users []string
	for _, m := range msgs {
		if m.Role == "user" {
			users = append(users, m.Content)
		}
		if strings.Contains(m.Content, "Once upon") {
			t.Errorf("the interrupted draft reached the next call: %+v", m)
		}
	}
	if !slices.Equal(users, []string{"tell me a story", "never mind: what is 2+2?"}) {
		t.Errorf("the next call's user messages = %q", users)
	}
	for _, n := range nodesOf(t, db, conv.ID, tree.AssistantMessage) {
		if m, _ := tree.Decode[tree.Message](n); strings.Contains(m.Text, "Once upon") {
			t.Errorf("the interrupted reply was recorded: %q", m.Text)
		}
	}
}

func TestQuickMessagesJoinIntoOneTurn(t *testing.T) {
	fake := llmtest.NewServer(t, llmtest.Reply{Chunks: []string{"unused"}, Delay: time.Minute}, llmtest.Text("Paris, in spring."))
	// A window no test machine's pace can outlast.
	svc, _ := newServiceWith(t, chat.Config{Assistants: registry.New(demo.Agents(demo.Options{})...), BatchWindow: time.Hour,
		Model: openai.New(openai.Config{APIKey: "k", BaseURL: fake.URL, Model: "m"})})
	conv, _ := svc.Create(t.Context(), "s", "assistant")
	if err := svc.Send(t.Context(), "s", conv.ID, "where should I go"); err != nil {
		t.Fatal(err)
	}
	waitView(t, svc, "s", conv.ID, "the model call", func(v pageview.View) bool { return len(fake.Requests()) == 1 })
	sent, err := svc.SendMessage(t.Context(), "s", conv.ID, inbound.Message{Text: "in Europe"})
	if err != nil || sent != inbound.SentJoined {
		t.Fatalf("sent %q, err %v; want %q", sent, err, inbound.SentJoined)
	}
	v := waitView(t, svc, "s", conv.ID, "the reply", func(v pageview.View) bool { return lastItem(v).Kind == tree.AssistantMessage })
	want := []tree.Kind{tree.UserMessage, tree.UserMessage, tree.AssistantMessage}
	if got := kinds(v); !slices.Equal(got, want) {
		t.Fatalf("items = %v, want %v: one turn for both messages", got, want)
	}
	if n := len(fake.Requests()); n != 2 {
		t.Errorf("%d model calls, want the abandoned one and the joined one", n)
	}
}

// TestAQueuingAssistantTakesMessagesInTurn: an assistant that queues keeps
// what is sent while it works, and answers it when its turn ends — the
// messages queued meanwhile joined into one turn.
func TestAQueuingAssistantTakesMessagesInTurn(t *testing.T) {
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
	svc, _ := newServiceWith(t, chat.Config{Assistants: registry.New(slow), Model: offline.New()})
	conv, _ := svc.Create(t.Context(), "s", "slow")
	if err := svc.Send(t.Context(), "s", conv.ID, "first"); err != nil {
		t.Fatal(err)
	}
	for _, m := range []string{"second", "third"} {
		if sent, err := svc.SendMessage(t.Context(), "s", conv.ID, inbound.Message{Text: m}); err != nil || sent != inbound.SentQueued {
			t.Fatalf("%s: sent %q, err %v; want queued", m, sent, err)
		}
	}
	v, _ := svc.View(t.Context(), "s", conv.ID)
	if !slices.Equal(v.Status.Queued, []string{"second", "third"}) {
		t.Errorf("the page shows queued %q", v.Status.Queued)
	}
	close(gate)
	v = waitView(t, svc, "s", conv.ID, "both turns", func(v pageview.View) bool {
		return len(v.Items) == 4 && lastItem(v).Kind == tree.AssistantMessage && !v.Status.Running
	})
	if got := lastItem(v).Text; got != "done: second\n\nthird" {
		t.Errorf("the queued turn's reply = %q", got)
	}
	if len(v.Status.Queued) != 0 {
		t.Errorf("still queued: %q", v.Status.Queued)
	}
}

// Messages queued while a turn works are recorded: after a restart the
// turn resumes, and once it ends the queued messages are sent, joined, as
// they would have been; sent, they are not sent again on the next load.
func TestQueuedMessagesAreSentAfterARestart(t *testing.T) {
	gate := make(chan struct{})
	var mu sync.Mutex
	var got []string
	slow := agents.Assistant{Name: "slow", Input: agents.Queue, Turn: func(ctx context.Context, m string) (string, error) {
		mu.Lock()
		got = append(got, m)
		mu.Unlock()
		if m == "first" {
			select {
			case <-gate:
			case <-ctx.Done():
				return "", ctx.Err()
			}
		}
		return "done: " + m, nil
	}}
	s := startServer(t, registry.New(slow), offline.New())
	ctx := t.Context()
	conv, _ := s.svc.Create(ctx, "s", "slow")
	if err := s.svc.Send(ctx, "s", conv.ID, "first"); err != nil {
		t.Fatal(err)
	}
	for _, m := range []string{"second", "third"} {
		if sent, err := s.svc.SendMessage(ctx, "s", conv.ID, inbound.Message{ID: "id-" + m, Text: m}); err != nil || sent != inbound.SentQueued {
			t.Fatalf("%s: sent %q, err %v; want queued", m, sent, err)
		}
	}
	s.restart()
	v, err := s.svc.View(ctx, "s", conv.ID)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(v.Status.Queued, []string{"second", "third"}) {
		t.Errorf("after the restart the page shows queued %q, want second and third", v.Status.Queued)
	}
	if sent, err := s.svc.SendMessage(ctx, "s", conv.ID, inbound.Message{ID: "id-second", Text: "second"}); err != nil || sent != inbound.SentQueued {
		t.Errorf("the second message sent again after the restart: %q, %v; want it known as queued", sent, err)
	}
	close(gate)
	v = waitView(t, s.svc, "s", conv.ID, "both turns", func(v pageview.View) bool {
		return len(v.Items) == 4 && lastItem(v).Kind == tree.AssistantMessage && !v.Status.Running
	})
	if got := lastItem(v).Text; got != "done: second\n\nthird" {
		t.Errorf("the queued turn's reply = %q", got)
	}
	s.restart()
	v, _ = s.svc.View(ctx, "s", conv.ID)
	if len(v.Status.Queued) != 0 || v.Status.Running || len(v.Items) != 4 {
		t.Errorf("after another restart: queued %q, running %v, %d items; want the queue sent once", v.Status.Queued, v.Status.Running, len(v.Items))
	}
}
