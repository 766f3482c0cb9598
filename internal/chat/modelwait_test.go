package chat_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sweatpants-go/sweatpants/agents"
	"github.com/sweatpants-go/sweatpants/internal/chat"
	"github.com/sweatpants-go/sweatpants/internal/feed"
	"github.com/sweatpants-go/sweatpants/internal/offline"
	"github.com/sweatpants-go/sweatpants/internal/pageview"
	"github.com/sweatpants-go/sweatpants/internal/registry"
	"github.com/sweatpants-go/sweatpants/internal/sampling"
	"github.com/sweatpants-go/sweatpants/internal/tree"
	"github.com/sweatpants-go/sweatpants/llm"
	"github.com/sweatpants-go/sweatpants/turn"
)

// slowModel answers only when released.
type slowModel struct{ release chan struct{} }

func (slowModel) Name() string { return "slow" }

func (m slowModel) Complete(ctx context.Context, _ llm.Request, _ func(string)) (llm.Response, error) {
	select {
	case <-m.release:
		return llm.Response{Content: "at last"}, nil
	case <-ctx.Done():
		return llm.Response{}, ctx.Err()
	}
}

// watchNew starts a conversation with agent and follows it as a page would,
// until the test ends.
func watchNew(t *testing.T, svc *chat.Service, agent string) (tree.Conversation, *feed.Follower) {
	t.Helper()
	conv, err := svc.Create(t.Context(), "me", agent)
	if err != nil {
		t.Fatal(err)
	}
	sub, _, err := svc.Subscribe(t.Context(), "me", conv.ID)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(sub.Close)
	return conv, sub
}

func TestThePageIsToldHowLongTheModelKeepsItWaiting(t *testing.T) {
	model := slowModel{release: make(chan struct{})}
	asker := agents.Assistant{Name: "asker", Turn: func(ctx context.Context, msg string) (string, error) {
		resp, err := turn.Sample(ctx, llm.Request{Messages: []llm.Message{{Role: llm.User, Content: msg}}})
		return resp.Content, err
	}}
	svc, _ := newServiceWith(t, chat.Config{Assistants: registry.New(asker), Model: model})
	conv, sub := watchNew(t, svc, "asker")
	if err := svc.Send(t.Context(), "me", conv.ID, "hello"); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	for waited := false; !waited; {
		u, err := sub.Next(ctx)
		changes, resync := u.Changes, u.Resync
		if err != nil {
			t.Fatalf("no status saying the turn waits on the model: %v", err)
		}
		if resync != nil && resync.Status.ModelWait >= time.Second {
			waited = true
		}
		for _, c := range changes {
			if c.Status != nil && c.Status.ModelWait >= time.Second {
				waited = true
			}
		}
	}
	close(model.release)
	v := waitView(t, svc, "me", conv.ID, "the reply", func(v pageview.View) bool { return !v.Status.Running })
	if it := lastItem(v); it.Text != "at last" || v.Status.ModelWait != 0 {
		t.Fatalf("after the reply: last item %+v, status %+v", it, v.Status)
	}
}

// A command that went well clears the notice an earlier one left, but not
// one a command running beside it left meanwhile.
func TestANoticeIsClearedOnlyByACommandThatBeganAfterIt(t *testing.T) {
	svc, _ := newService(t, offline.New())
	conv, err := svc.Create(t.Context(), "me", "concierge")
	if err != nil {
		t.Fatal(err)
	}
	sub, _, err := svc.Subscribe(t.Context(), "me", conv.ID) // keeps it in memory
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Close()
	began := time.Now()
	svc.Notice("me", conv.ID, "That question was already answered; the first answer stands.")
	svc.ClearNotice("me", conv.ID, began) // began before the notice was shown
	v, _ := svc.View(t.Context(), "me", conv.ID)
	if v.Notice.Text == "" {
		t.Fatal("a command that began before the notice cleared it")
	}
	svc.ClearNotice("me", conv.ID, time.Now())
	if v, _ := svc.View(t.Context(), "me", conv.ID); v.Notice.Text != "" {
		t.Fatalf("notice %q after a later command went well, want none", v.Notice.Text)
	}
}

// streamer streams its replies word by word when asked to, and notes which
// of its calls were streamed: a call with Output set answers JSON.
type streamer struct {
	mu       sync.Mutex
	streamed []bool
}

func (*streamer) Name() string { return "streamer" }

func (m *streamer) Complete(_ context.Context, req llm.Request, onDelta func(string)) (llm.Response, error) {
	m.mu.Lock()
	m.streamed = append(m.streamed, onDelta != nil)
	m.mu.Unlock()
	text := "It is sunny in Oslo today."
	if req.Output != nil {
		text = `{"city":"Oslo"}`
	}
	if onDelta != nil {
		for _, w := range strings.SplitAfter(text, " ") {
			onDelta(w)
		}
	}
	return llm.Response{Content: text}, nil
}

// Only the reply's own model call streams to the page: a typed value read
// out of the user's words (SampleAs) does not flash in the chat.
func TestOnlyTheReplysOwnModelCallStreams(t *testing.T) {
	type place struct {
		City string `json:"city"`
	}
	asker := agents.Assistant{Name: "asker", Turn: func(ctx context.Context, msg string) (string, error) {
		p, err := turn.SampleAs[place](ctx, llm.Request{Messages: []llm.Message{{Role: llm.User, Content: msg}}})
		if err != nil {
			return "", err
		}
		resp, err := turn.Sample(ctx, llm.Request{Messages: []llm.Message{{Role: llm.User, Content: "Weather in " + p.Value.City}}})
		return resp.Content, err
	}}
	model := &streamer{}
	svc, _ := newServiceWith(t, chat.Config{Assistants: registry.New(asker), Model: model})
	conv, sub := watchNew(t, svc, "asker")
	if err := svc.Send(t.Context(), "me", conv.ID, "weather in Oslo?"); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	var drafts []string
	for done := false; !done; {
		u, err := sub.Next(ctx)
		changes := u.Changes
		if err != nil {
			t.Fatalf("the turn did not end: %v", err)
		}
		for _, c := range changes {
			if c.Status == nil {
				continue
			}
			if c.Status.Draft != "" {
				drafts = append(drafts, c.Status.Draft)
			}
			done = done || !c.Status.Running
		}
	}
	for _, d := range drafts {
		if strings.Contains(d, "city") {
			t.Fatalf("the typed call's text reached the page: %q", d)
		}
	}
	// Drafts are coalesced on their way to a page, so what the page saw is
	// told by which calls were streamed at all.
	if len(model.streamed) != 2 || model.streamed[0] || !model.streamed[1] {
		t.Fatalf("calls streamed %v, want the typed one not, the reply yes", model.streamed)
	}
}

// A turn stopped by its budget says so in words the user can read.
func TestASpentBudgetIsToldToTheUser(t *testing.T) {
	asker := agents.Assistant{Name: "asker", Turn: func(ctx context.Context, msg string) (string, error) {
		for {
			if _, err := turn.Sample(ctx, llm.Request{Messages: []llm.Message{{Role: llm.User, Content: msg}}}); err != nil {
				return "", err
			}
		}
	}}
	svc, _ := newServiceWith(t, chat.Config{Assistants: registry.New(asker), Model: offline.New(),
		Scope: func(ctx context.Context) context.Context { return sampling.Budget(ctx, sampling.Limits{Calls: 2}) }})
	conv, err := svc.Create(t.Context(), "me", "asker")
	if err != nil {
		t.Fatal(err)
	}
	if err := svc.Send(t.Context(), "me", conv.ID, "again and again"); err != nil {
		t.Fatal(err)
	}
	v := waitView(t, svc, "me", conv.ID, "the turn's end", func(v pageview.View) bool { return !v.Status.Running })
	if it := lastItem(v); it.Kind != tree.TurnError || it.Text != "This turn used its budget of 2 model calls; stopped so it does not run away." {
		t.Fatalf("last item %+v", it)
	}
}
