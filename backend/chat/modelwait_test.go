package chat_test

import (
	"context"
	"testing"
	"time"

	"github.com/sweatpants-go/sweatpants/backend/agents"
	"github.com/sweatpants-go/sweatpants/backend/chat"
	"github.com/sweatpants-go/sweatpants/backend/llm"
	"github.com/sweatpants-go/sweatpants/backend/llm/offline"
	"github.com/sweatpants-go/sweatpants/backend/runtime"
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

func TestThePageIsToldHowLongTheModelKeepsItWaiting(t *testing.T) {
	model := slowModel{release: make(chan struct{})}
	asker := agents.Assistant{Name: "asker", Turn: func(ctx context.Context, msg string) (string, error) {
		resp, err := runtime.Sample(ctx, llm.Request{Messages: []llm.Message{{Role: llm.User, Content: msg}}})
		return resp.Content, err
	}}
	svc, _ := newServiceWith(t, chat.Config{Assistants: agents.NewRegistry(asker), Model: model})
	conv, err := svc.Create(t.Context(), "me", "asker")
	if err != nil {
		t.Fatal(err)
	}
	sub, _, err := svc.Subscribe(t.Context(), "me", conv.ID)
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Close()
	if err := svc.Send(t.Context(), "me", conv.ID, "hello"); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	for waited := false; !waited; {
		changes, resync, err := sub.Next(ctx)
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
	v := waitView(t, svc, "me", conv.ID, "the reply", func(v chat.View) bool { return !v.Status.Running })
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
