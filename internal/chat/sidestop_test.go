package chat_test

import (
	"strings"
	"testing"

	"github.com/sweatpants-go/sweatpants/internal/inbound"
	"github.com/sweatpants-go/sweatpants/internal/pageview"
	"github.com/sweatpants-go/sweatpants/internal/tree"
	"github.com/sweatpants-go/sweatpants/llm/llmtest"
	"github.com/sweatpants-go/sweatpants/llm/openai"
)

// Stop during a side question's streamed reply keeps what had streamed, on
// the side question's Stopped node, as a stopped turn of the flow does; a
// follow-up's model call is not given it.
func TestStopKeepsASideTurnsPartialReply(t *testing.T) {
	fake := llmtest.NewServer(t, llmtest.Text("Hello."), llmtest.Reply{Chunks: []string{"Once upon a time, "}, Hold: true}, llmtest.Text("Four."))
	svc, db := newService(t, openai.New(openai.Config{APIKey: "k", BaseURL: fake.URL, Model: "m"}))
	conv, _ := svc.Create(t.Context(), "s", "assistant")
	if err := svc.Send(t.Context(), "s", conv.ID, "hi"); err != nil {
		t.Fatal(err)
	}
	v := waitView(t, svc, "s", conv.ID, "the reply", func(v pageview.View) bool { return lastItem(v).Kind == tree.AssistantMessage })
	if err := svc.AskAside(t.Context(), "s", conv.ID, lastItem(v).ID, "tell me a story"); err != nil {
		t.Fatal(err)
	}
	waitView(t, svc, "s", conv.ID, "the side reply streaming", func(v pageview.View) bool {
		s := sideItems(v)
		return len(s) == 1 && s[0].Draft == "Once upon a time, "
	})
	if err := svc.Stop(t.Context(), "s", conv.ID); err != nil {
		t.Fatal(err)
	}
	v = repliedSides(t, svc, conv.ID, 1)
	if it := sideItems(v)[0]; it.Ended != tree.Stopped || it.Reply != "Stopped." || it.Partial != "Once upon a time, " {
		t.Fatalf("the stopped side question = %+v, want it stopped with its partial reply", it)
	}
	stopped := nodesOf(t, db, conv.ID, tree.Stopped)
	if m, _ := tree.Decode[tree.Message](stopped[0]); len(stopped) != 1 || m.Partial != "Once upon a time, " {
		t.Errorf("recorded stops %v, want one keeping the partial reply", stopped)
	}

	if _, err := svc.SendMessage(t.Context(), "s", conv.ID, inbound.Message{Text: "what is 2+2?"}); err != nil {
		t.Fatal(err)
	}
	waitView(t, svc, "s", conv.ID, "the next reply", func(v pageview.View) bool { return lastItem(v).Text == "Four." })
	reqs := fake.Requests()
	for _, m := range reqs[len(reqs)-1].Messages {
		if strings.Contains(m.Content, "Once upon") {
			t.Errorf("the stopped partial reply reached the next call: %+v", m)
		}
	}
}
