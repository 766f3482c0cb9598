package chat_test

import (
	"strings"
	"testing"

	"github.com/sweatpants-go/sweatpants/internal/apperr"
	"github.com/sweatpants-go/sweatpants/internal/inbound"
	"github.com/sweatpants-go/sweatpants/internal/offline"
	"github.com/sweatpants-go/sweatpants/internal/pageview"
	"github.com/sweatpants-go/sweatpants/internal/tree"
	"github.com/sweatpants-go/sweatpants/llm/llmtest"
	"github.com/sweatpants-go/sweatpants/llm/openai"
)

// A reply stopped mid-stream keeps what had streamed, on the Stopped node,
// for the user; the next turn's model call does not see it.
func TestStopKeepsThePartialReplyFromTheModel(t *testing.T) {
	fake := llmtest.NewServer(t, llmtest.Reply{Chunks: []string{"Once upon a time, "}, Hold: true}, llmtest.Text("Four."))
	svc, db := newService(t, openai.New(openai.Config{APIKey: "k", BaseURL: fake.URL, Model: "m"}))
	conv, _ := svc.Create(t.Context(), "s", "assistant")
	if err := svc.Send(t.Context(), "s", conv.ID, "tell me a story"); err != nil {
		t.Fatal(err)
	}
	waitView(t, svc, "s", conv.ID, "the reply streaming", func(v pageview.View) bool { return v.Status.Draft == "Once upon a time, " })
	if err := svc.Stop(t.Context(), "s", conv.ID); err != nil {
		t.Fatal(err)
	}
	v := waitView(t, svc, "s", conv.ID, "the turn to stop", func(v pageview.View) bool { return !v.Status.Running })
	it := lastItem(v)
	if it.Kind != tree.Stopped || it.Text != "Stopped." || it.Partial != "Once upon a time, " {
		t.Fatalf("last item = %+v, want the stopped turn with its partial reply", it)
	}
	stopped := nodesOf(t, db, conv.ID, tree.Stopped)
	if m, _ := tree.Decode[tree.Message](stopped[0]); len(stopped) != 1 || m.Partial != "Once upon a time, " {
		t.Errorf("recorded stops %v, want one keeping the partial reply", stopped)
	}
	if n := len(nodesOf(t, db, conv.ID, tree.AssistantMessage)); n != 0 {
		t.Errorf("%d replies recorded for a stopped turn", n)
	}

	if err := svc.Send(t.Context(), "s", conv.ID, "what is 2+2?"); err != nil {
		t.Fatal(err)
	}
	waitView(t, svc, "s", conv.ID, "the next reply", func(v pageview.View) bool { return lastItem(v).Kind == tree.AssistantMessage })
	reqs := fake.Requests()
	for _, m := range reqs[len(reqs)-1].Messages {
		if strings.Contains(m.Content, "Once upon") {
			t.Errorf("the stopped partial reply reached the next call: %+v", m)
		}
	}
}

// A reply interrupted by a new message keeps what had streamed, too.
func TestAnInterruptedReplyKeepsItsPartialText(t *testing.T) {
	fake := llmtest.NewServer(t, llmtest.Reply{Chunks: []string{"Once upon a time"}, Hold: true}, llmtest.Text("Four."))
	svc, _ := newService(t, openai.New(openai.Config{APIKey: "k", BaseURL: fake.URL, Model: "m"}))
	conv, _ := svc.Create(t.Context(), "s", "assistant")
	if err := svc.Send(t.Context(), "s", conv.ID, "tell me a story"); err != nil {
		t.Fatal(err)
	}
	waitView(t, svc, "s", conv.ID, "the reply streaming", func(v pageview.View) bool { return v.Status.Draft == "Once upon a time" })
	if sent, err := svc.SendMessage(t.Context(), "s", conv.ID, inbound.Message{Text: "never mind"}); err != nil || sent != inbound.SentInterrupted {
		t.Fatalf("sent %q, err %v", sent, err)
	}
	v := waitView(t, svc, "s", conv.ID, "the new reply", func(v pageview.View) bool { return lastItem(v).Kind == tree.AssistantMessage })
	if it := v.Items[1]; it.Kind != tree.Stopped || it.Partial != "Once upon a time" || !strings.Contains(it.Text, "new message") {
		t.Errorf("the interrupted turn = %+v, want its partial reply kept", it)
	}
}

// A stop with nothing streamed keeps no partial text.
func TestAStopBeforeAnyTextKeepsNoPartial(t *testing.T) {
	svc, _ := newService(t, offline.New())
	conv, _ := svc.Create(t.Context(), "s", "survey")
	if err := svc.Send(t.Context(), "s", conv.ID, "2"); err != nil {
		t.Fatal(err)
	}
	waitView(t, svc, "s", conv.ID, "the question", func(v pageview.View) bool { return pendingElicit(v) != nil })
	if err := svc.Stop(t.Context(), "s", conv.ID); err != nil {
		t.Fatal(err)
	}
	v := waitView(t, svc, "s", conv.ID, "the turn to stop", func(v pageview.View) bool { return !v.Status.Running })
	if it := lastItem(v); it.Kind != tree.Stopped || it.Partial != "" {
		t.Errorf("last item = %+v, want a stop with no partial reply", it)
	}
}

// A question its turn no longer waits on stays on the page, withdrawn:
// what was asked is kept, and it cannot be answered.
func TestAWithdrawnQuestionStaysShownAndClosed(t *testing.T) {
	svc, _ := newService(t, offline.New())
	conv, _ := svc.Create(t.Context(), "s", "concierge")
	if err := svc.Send(t.Context(), "s", conv.ID, "Plan a trip"); err != nil {
		t.Fatal(err)
	}
	v := waitView(t, svc, "s", conv.ID, "the form", func(v pageview.View) bool { return pendingElicit(v) != nil })
	asked := *pendingElicit(v)
	if err := svc.Stop(t.Context(), "s", conv.ID); err != nil {
		t.Fatal(err)
	}
	v = waitView(t, svc, "s", conv.ID, "the turn to stop", func(v pageview.View) bool { return !v.Status.Running })
	var shown []pageview.ElicitView
	for _, it := range v.Items {
		if it.Elicit != nil {
			shown = append(shown, *it.Elicit)
		}
	}
	if len(shown) != 1 || shown[0].State != pageview.Interrupted || shown[0].Request.ID != asked.Request.ID ||
		shown[0].Request.Message != asked.Request.Message {
		t.Fatalf("questions shown after the stop = %+v, want the one asked, withdrawn", shown)
	}
	err := svc.Answer(t.Context(), "s", conv.ID, asked.Request.ID, accept(`{"destination":"Rome","travellers":1,"cabin":"economy","hotel":false}`))
	if apperr.CodeOf(err) != apperr.Conflict {
		t.Errorf("answering the withdrawn question: err = %v, want a conflict", err)
	}
}

// A trip form answered in words is asked again filled in from the words,
// read by the model as typed output.
func TestAFormAnsweredInWordsComesBackFilledIn(t *testing.T) {
	svc, _ := newService(t, offline.New())
	conv, _ := svc.Create(t.Context(), "s", "concierge")
	if err := svc.Send(t.Context(), "s", conv.ID, "Plan a trip to Porto"); err != nil {
		t.Fatal(err)
	}
	v := waitView(t, svc, "s", conv.ID, "the form", func(v pageview.View) bool { return pendingElicit(v) != nil })
	first := pendingElicit(v).Request.ID
	sent, err := svc.SendMessage(t.Context(), "s", conv.ID, inbound.Message{Text: "make it 3 travellers, business class"})
	if err != nil || sent != inbound.SentAnswer {
		t.Fatalf("sent %q, err %v; want the words taken as the answer", sent, err)
	}
	v = waitView(t, svc, "s", conv.ID, "the form again", func(v pageview.View) bool {
		e := pendingElicit(v)
		return e != nil && e.Request.ID != first
	})
	e := pendingElicit(v)
	for name, want := range map[string]string{"destination": "Porto", "travellers": "3", "cabin": "business"} {
		if got := e.Value(name); got != want {
			t.Errorf("the form asked again has %s = %q, want %q", name, got, want)
		}
	}
}

// The answer just recorded, sent again, is accepted and changes nothing;
// another answer is still a conflict.
func TestAResendOfTheSameAnswerIsAccepted(t *testing.T) {
	svc, db := newService(t, offline.New())
	conv, _ := svc.Create(t.Context(), "s", "survey")
	if err := svc.Send(t.Context(), "s", conv.ID, "2"); err != nil {
		t.Fatal(err)
	}
	v := waitView(t, svc, "s", conv.ID, "the question", func(v pageview.View) bool { return pendingElicit(v) != nil })
	eid := pendingElicit(v).Request.ID
	for i := range 2 {
		if err := svc.Answer(t.Context(), "s", conv.ID, eid, accept(`{"answer":"blue"}`)); err != nil {
			t.Fatalf("answer %d: %v", i+1, err)
		}
	}
	if err := svc.Answer(t.Context(), "s", conv.ID, eid, accept(`{"answer":"red"}`)); apperr.CodeOf(err) != apperr.Conflict {
		t.Errorf("another answer: err = %v, want a conflict", err)
	}
	var answers int
	for _, n := range nodesOf(t, db, conv.ID, tree.ElicitResponse) {
		if n.Ref == eid {
			answers++
		}
	}
	if answers != 1 {
		t.Errorf("%d answers recorded for the question, want 1", answers)
	}
}
