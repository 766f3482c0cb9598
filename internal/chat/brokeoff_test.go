package chat_test

import (
	"strings"
	"testing"

	"github.com/sweatpants-go/sweatpants/internal/pageview"
	"github.com/sweatpants-go/sweatpants/internal/tree"
	"github.com/sweatpants-go/sweatpants/llm/llmtest"
	"github.com/sweatpants-go/sweatpants/llm/openai"
)

// A reply cut off before it showed anything (the white space a model
// starts with is nothing to see) is asked for again at once, like a
// dropped connection: the turn ends with the reply, and no Retry is needed.
func TestAReplyCutBeforeItShowsIsAskedForAgain(t *testing.T) {
	for name, cut := range map[string]llmtest.Reply{
		"ended":   {Chunks: []string{"\n\n"}, Cut: true},
		"dropped": {Chunks: []string{" "}, Drop: true},
	} {
		t.Run(name, func(t *testing.T) {
			fake := llmtest.NewServer(t, cut, llmtest.Text("Four."))
			svc, _ := newService(t, openai.New(openai.Config{APIKey: "sk-test", BaseURL: fake.URL, Model: "m"}))
			conv, _ := svc.Create(t.Context(), "s", "assistant")
			if err := svc.Send(t.Context(), "s", conv.ID, "what is 2+2?"); err != nil {
				t.Fatal(err)
			}
			v := waitView(t, svc, "s", conv.ID, "the turn's end", func(v pageview.View) bool { return !v.Status.Running })
			if it := lastItem(v); it.Kind != tree.AssistantMessage || it.Text != "Four." {
				t.Errorf("last item = %+v, want the reply asked for again", it)
			}
			if n := len(fake.Requests()); n != 2 {
				t.Errorf("the model was asked %d times, want 2", n)
			}
		})
	}
}

// A reply cut off after it began to show keeps what showed, marked as
// broken off, on the failure; the next model call does not take it for a
// reply, and Retry asks for the reply again.
func TestAReplyCutAfterItShowedKeepsWhatShowed(t *testing.T) {
	fake := llmtest.NewServer(t, llmtest.Reply{Chunks: []string{"Once upon ", "a time"}, Cut: true}, llmtest.Text("Once upon a time, the end."))
	svc, db := newService(t, openai.New(openai.Config{APIKey: "sk-test", BaseURL: fake.URL, Model: "m"}))
	conv, _ := svc.Create(t.Context(), "s", "assistant")
	if err := svc.Send(t.Context(), "s", conv.ID, "tell me a story"); err != nil {
		t.Fatal(err)
	}
	v := waitView(t, svc, "s", conv.ID, "the turn's end", func(v pageview.View) bool { return !v.Status.Running })
	it := lastItem(v)
	if it.Kind != tree.TurnError || it.Partial != "Once upon a time" || !strings.Contains(it.Text, "broke off") {
		t.Fatalf("last item = %+v, want the failure keeping the reply that broke off", it)
	}
	failed := nodesOf(t, db, conv.ID, tree.TurnError)
	if m, _ := tree.Decode[tree.Message](failed[0]); len(failed) != 1 || m.Partial != "Once upon a time" {
		t.Errorf("recorded failures %v, want one keeping what showed", failed)
	}
	if n := len(fake.Requests()); n != 1 {
		t.Errorf("the model was asked %d times, want once: what showed would not be continued", n)
	}

	if err := svc.Retry(t.Context(), "s", conv.ID, it.ID); err != nil {
		t.Fatal(err)
	}
	v = waitView(t, svc, "s", conv.ID, "the retried reply", func(v pageview.View) bool {
		return !v.Status.Running && lastItem(v).Kind == tree.AssistantMessage
	})
	if it := lastItem(v); it.Text != "Once upon a time, the end." {
		t.Errorf("last item = %+v, want the reply asked for again", it)
	}
	for _, m := range fake.Requests()[1].Messages {
		if m.Role == "assistant" {
			t.Errorf("the retried call was given %+v, want no reply that broke off", m)
		}
	}
}

// A side question's reply that broke off keeps what showed too.
func TestASideReplyCutAfterItShowedKeepsWhatShowed(t *testing.T) {
	fake := llmtest.NewServer(t, llmtest.Text("Hello."), llmtest.Reply{Chunks: []string{"Once upon ", "a time"}, Cut: true})
	svc, db := newService(t, openai.New(openai.Config{APIKey: "sk-test", BaseURL: fake.URL, Model: "m"}))
	conv, _ := svc.Create(t.Context(), "s", "assistant")
	if err := svc.Send(t.Context(), "s", conv.ID, "hi"); err != nil {
		t.Fatal(err)
	}
	v := waitView(t, svc, "s", conv.ID, "the reply", func(v pageview.View) bool { return lastItem(v).Kind == tree.AssistantMessage })
	if err := svc.AskAside(t.Context(), "s", conv.ID, lastItem(v).ID, "tell me a story"); err != nil {
		t.Fatal(err)
	}
	v = repliedSides(t, svc, conv.ID, 1)
	if it := sideItems(v)[0]; it.Ended != tree.TurnError || it.Partial != "Once upon a time" || !strings.Contains(it.Reply, "broke off") {
		t.Fatalf("the side question = %+v, want it ended by the failure, keeping what showed", it)
	}
	failed := nodesOf(t, db, conv.ID, tree.TurnError)
	if m, _ := tree.Decode[tree.Message](failed[0]); len(failed) != 1 || m.Partial != "Once upon a time" {
		t.Errorf("recorded failures %v, want one keeping what showed", failed)
	}
}
