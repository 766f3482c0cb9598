package chat_test

import (
	"context"
	"strings"
	"testing"

	"github.com/sweatpants-go/sweatpants/agents"
	"github.com/sweatpants-go/sweatpants/elicit"
	"github.com/sweatpants-go/sweatpants/internal/chat"
	"github.com/sweatpants-go/sweatpants/internal/inbound"
	"github.com/sweatpants-go/sweatpants/internal/offline"
	"github.com/sweatpants-go/sweatpants/internal/pageview"
	"github.com/sweatpants-go/sweatpants/internal/registry"
	"github.com/sweatpants-go/sweatpants/internal/store"
	"github.com/sweatpants-go/sweatpants/internal/tree"
	"github.com/sweatpants-go/sweatpants/llm/llmtest"
	"github.com/sweatpants-go/sweatpants/llm/openai"
	"github.com/sweatpants-go/sweatpants/turn"
)

// sideItems returns the side questions the view shows, in order.
func sideItems(v pageview.View) []pageview.Item {
	var out []pageview.Item
	for _, it := range v.Items {
		if it.Kind == tree.SideQuestion {
			out = append(out, it)
		}
	}
	return out
}

// repliedSides waits until n side questions have ended.
func repliedSides(t *testing.T, svc *chat.Service, conv string, n int) pageview.View {
	t.Helper()
	return waitView(t, svc, "s", conv, "the side replies", func(v pageview.View) bool {
		s := sideItems(v)
		return len(s) == n && s[n-1].Replied
	})
}

// nodesOf returns the conversation's nodes of kind.
func nodesOf(t *testing.T, db *store.DB, conv string, kind tree.Kind) []tree.Node {
	t.Helper()
	all, err := db.Nodes(t.Context(), conv)
	if err != nil {
		t.Fatal(err)
	}
	var out []tree.Node
	for _, n := range all {
		if n.Kind == kind {
			out = append(out, n)
		}
	}
	return out
}

// wholeRequest is the request model call n sent, rebuilt whole from its
// record and the records it continues (tree.Requests).
func wholeRequest(t *testing.T, db *store.DB, conv string, n tree.Node) tree.SampleRecord {
	t.Helper()
	all, err := db.Nodes(t.Context(), conv)
	if err != nil {
		t.Fatal(err)
	}
	byID := make(map[int64]tree.Node, len(all))
	for _, n := range all {
		byID[n.ID] = n
	}
	rec, err := new(tree.Requests).Whole(n, func(id int64) (tree.Node, bool) { n, ok := byID[id]; return n, ok })
	if err != nil {
		t.Fatal(err)
	}
	return rec
}

func TestASideQuestionIsATurnThatCallsTools(t *testing.T) {
	svc, db := newService(t, offline.New())
	conv, _ := svc.Create(t.Context(), "s", "concierge")
	if err := svc.Send(t.Context(), "s", conv.ID, "plan a trip"); err != nil {
		t.Fatal(err)
	}
	v := waitView(t, svc, "s", conv.ID, "the form", func(v pageview.View) bool { return pendingElicit(v) != nil })
	eid, head := pendingElicit(v).Request.ID, v.Conversation.Head

	sent, err := svc.SendMessage(t.Context(), "s", conv.ID, inbound.Message{Text: "What's the weather in Tokyo?"})
	if err != nil || sent != inbound.SentSide {
		t.Fatalf("a side question: sent %q, err %v; want %q", sent, err, inbound.SentSide)
	}
	v = repliedSides(t, svc, conv.ID, 1)
	side := sideItems(v)[0]
	if side.Ended != tree.SideReply || !strings.Contains(side.Reply, "Tokyo") || !strings.Contains(side.Reply, "light rain") {
		t.Errorf("the side reply = %+v, want the weather agent's answer for Tokyo", side)
	}
	if !side.WhileWaiting || side.Anchor != head {
		t.Errorf("the side question hangs from %d (while waiting: %v), want HEAD %d", side.Anchor, side.WhileWaiting, head)
	}
	tools := nodesOf(t, db, conv.ID, tree.ToolCall)
	if len(tools) != 1 {
		t.Fatalf("tool calls = %d, want the weather agent's one", len(tools))
	}
	if rec, _ := tree.Decode[tree.ToolRecord](tools[0]); rec.Tool != "getWeather" {
		t.Errorf("the side turn called %s, want getWeather", rec.Tool)
	}

	// A follow-up: the model is given the thread so far.
	if _, err := svc.SendMessage(t.Context(), "s", conv.ID, inbound.Message{Text: "And in Osaka?"}); err != nil {
		t.Fatal(err)
	}
	v = repliedSides(t, svc, conv.ID, 2)
	samples := nodesOf(t, db, conv.ID, tree.Sample)
	last := wholeRequest(t, db, conv.ID, samples[len(samples)-1])
	var said []string
	for _, m := range last.Request.Messages {
		said = append(said, m.Content)
	}
	joined := strings.Join(said, "\n")
	for _, want := range []string{"plan a trip", "What's the weather in Tokyo?", side.Reply, "And in Osaka?"} {
		if !strings.Contains(joined, want) {
			t.Errorf("the follow-up's model call lacks %q; it was given:\n%s", want, joined)
		}
	}

	// The flow waited where it was, and goes on.
	if e := pendingElicit(v); e == nil || e.Request.ID != eid || v.Conversation.Head != head {
		t.Fatalf("after the side questions: pending %+v, HEAD %d; want %s pending at HEAD %d", e, v.Conversation.Head, eid, head)
	}
	if err := svc.Answer(t.Context(), "s", conv.ID, eid, accept(`{"destination":"Tokyo","travellers":1,"cabin":"economy","hotel":false}`)); err != nil {
		t.Fatal(err)
	}
	v = waitView(t, svc, "s", conv.ID, "the plan", func(v pageview.View) bool { return lastItem(v).Kind == tree.AssistantMessage })
	if got := lastItem(v).Text; !strings.HasPrefix(got, "Your trip to Tokyo is planned") {
		t.Errorf("the reply after the side questions = %q", got)
	}
	if n := len(sideItems(v)); n != 2 {
		t.Errorf("the page shows %d side questions after the flow went on, want 2", n)
	}
}

// TestTheModelDecidesWhatTypedTextIs: with a real model, what a message
// typed while a form waits is comes from the model's typed output, and the
// decision is recorded; Stop then ends the side turn alone.
func TestTheModelDecidesWhatTypedTextIs(t *testing.T) {
	fake := llmtest.NewServer(t,
		llmtest.Call("plan-trip", `{"request":"a trip"}`),
		llmtest.Text(`{"choice":"side","reason":"it asks about the weather"}`),
		llmtest.Reply{Chunks: []string{"It is "}, Hold: true},
	)
	svc, db := newService(t, openai.New(openai.Config{APIKey: "k", BaseURL: fake.URL, Model: "m"}))
	conv, _ := svc.Create(t.Context(), "s", "concierge")
	if err := svc.Send(t.Context(), "s", conv.ID, "a trip"); err != nil {
		t.Fatal(err)
	}
	v := waitView(t, svc, "s", conv.ID, "the form", func(v pageview.View) bool { return pendingElicit(v) != nil })
	eid := pendingElicit(v).Request.ID

	sent, err := svc.SendMessage(t.Context(), "s", conv.ID, inbound.Message{Text: "how warm is it there?"})
	if err != nil || sent != inbound.SentSide {
		t.Fatalf("sent %q, err %v; want a side question", sent, err)
	}
	decisions := nodesOf(t, db, conv.ID, tree.Decision)
	if len(decisions) != 1 {
		t.Fatalf("%d decisions recorded, want 1", len(decisions))
	}
	d, _ := tree.Decode[tree.DecisionRecord](decisions[0])
	if d.Choice != "side" || d.By != "model" || d.Waited != eid || d.Reason != "it asks about the weather" || d.Sample == nil {
		t.Errorf("the decision = %+v, want the model's side choice about %s with its call", d, eid)
	}
	if rf := fake.Requests()[1].ResponseFormat; rf == nil || rf.Type != "json_schema" {
		t.Errorf("the decision was asked for with response format %+v, want a JSON schema", rf)
	}

	waitView(t, svc, "s", conv.ID, "the side reply streaming", func(v pageview.View) bool {
		s := sideItems(v)
		return len(s) == 1 && s[0].Draft == "It is " && v.Status.Aside
	})
	if err := svc.Stop(t.Context(), "s", conv.ID); err != nil {
		t.Fatal(err)
	}
	v = repliedSides(t, svc, conv.ID, 1)
	if s := sideItems(v)[0]; s.Ended != tree.Stopped {
		t.Errorf("the stopped side question ended with %q, want stopped", s.Ended)
	}
	if e := pendingElicit(v); e == nil || e.Request.ID != eid || !v.Status.Running || v.Status.Aside {
		t.Errorf("after stopping the side question: pending %+v, status %+v; want the form still waiting", e, v.Status)
	}
}

// TestASideTurnResumesAfterARestart: a side question whose answer the
// server did not finish is answered after a restart, and the flow's
// question still waits.
func TestASideTurnResumesAfterARestart(t *testing.T) {
	release := make(chan struct{})
	held := agents.Assistant{Name: "held", Turn: func(ctx context.Context, _ string) (string, error) {
		_, err := turn.Ask(ctx, elicit.Confirm, "Shall I go on?", elicit.ConfirmInput{})
		return "done", err
	}, Side: func(ctx context.Context, m string) (string, error) {
		select {
		case <-release:
		case <-ctx.Done():
			return "", ctx.Err()
		}
		return "answered: " + m, nil
	}}
	s := startServer(t, registry.New(held), offline.New())
	conv, _ := s.svc.Create(t.Context(), "s", "held")
	if err := s.svc.Send(t.Context(), "s", conv.ID, "go"); err != nil {
		t.Fatal(err)
	}
	waitView(t, s.svc, "s", conv.ID, "the question", func(v pageview.View) bool { return pendingElicit(v) != nil })
	if _, err := s.svc.SendMessage(t.Context(), "s", conv.ID, inbound.Message{Text: "by the way?"}); err != nil {
		t.Fatal(err)
	}
	s.restart()
	close(release)
	v := repliedSides(t, s.svc, conv.ID, 1)
	if got := sideItems(v)[0].Reply; got != "answered: by the way?" {
		t.Errorf("after the restart the side reply = %q", got)
	}
	if pendingElicit(v) == nil {
		t.Error("the flow's question no longer waits")
	}
	if n := len(s.nodes(conv.ID, tree.SideQuestion)); n != 1 {
		t.Errorf("%d side questions recorded, want 1", n)
	}
}

// TestASideTurnAsksTheUser: a side question's turn may ask the user; its
// question is answered in the side question's place, beside the flow's,
// which still waits.
func TestASideTurnAsksTheUser(t *testing.T) {
	asker := agents.Assistant{Name: "asker", Turn: func(ctx context.Context, _ string) (string, error) {
		res, err := turn.Ask(ctx, elicit.Confirm, "Book it?", elicit.ConfirmInput{})
		if err != nil {
			return "", err
		}
		return "booked: " + string(res.Action), nil
	}, Side: func(ctx context.Context, m string) (string, error) {
		res, err := turn.Ask(ctx, elicit.Confirm, "Shall I look that up?", elicit.ConfirmInput{})
		if err != nil {
			return "", err
		}
		return "looked up: " + string(res.Action), nil
	}}
	s := startServer(t, registry.New(asker), offline.New())
	conv, _ := s.svc.Create(t.Context(), "s", "asker")
	if err := s.svc.Send(t.Context(), "s", conv.ID, "go"); err != nil {
		t.Fatal(err)
	}
	v := waitView(t, s.svc, "s", conv.ID, "the flow's question", func(v pageview.View) bool { return pendingElicit(v) != nil })
	flow := pendingElicit(v).Request.ID
	if _, err := s.svc.SendMessage(t.Context(), "s", conv.ID, inbound.Message{Text: "is it raining?"}); err != nil {
		t.Fatal(err)
	}
	v = waitView(t, s.svc, "s", conv.ID, "the side question's question", func(v pageview.View) bool {
		sides := sideItems(v)
		return len(sides) == 1 && len(sides[0].Asks) == 1 && sides[0].Asks[0].Elicit.State == pageview.Pending
	})
	side := sideItems(v)[0].Asks[0].Elicit.Request
	if side.Message != "Shall I look that up?" {
		t.Errorf("the side question asks %q", side.Message)
	}
	if e := pendingElicit(v); e == nil || e.Request.ID != flow || !v.Status.Waiting {
		t.Errorf("the flow's question is %+v (waiting %v), want %s still first", e, v.Status.Waiting, flow)
	}
	// A restart, then the side question's question is answered.
	s.restart()
	waitView(t, s.svc, "s", conv.ID, "the side question's question again", func(v pageview.View) bool {
		sides := sideItems(v)
		return len(sides) == 1 && len(sides[0].Asks) == 1 && sides[0].Asks[0].Elicit.State == pageview.Pending
	})
	if err := s.svc.Answer(t.Context(), "s", conv.ID, side.ID, accept(`{"yes":true}`)); err != nil {
		t.Fatal(err)
	}
	v = repliedSides(t, s.svc, conv.ID, 1)
	if got := sideItems(v)[0]; got.Reply != "looked up: accept" || got.Asks[0].Elicit.State != pageview.Answered {
		t.Errorf("the side question ended %+v", got)
	}
	if err := s.svc.Answer(t.Context(), "s", conv.ID, flow, accept(`{"yes":true}`)); err != nil {
		t.Fatal(err)
	}
	v = waitView(t, s.svc, "s", conv.ID, "the flow's reply", func(v pageview.View) bool { return lastItem(v).Kind == tree.AssistantMessage })
	if got := lastItem(v).Text; got != "booked: accept" {
		t.Errorf("the flow's reply = %q", got)
	}
	if n := len(s.nodes(conv.ID, tree.ElicitResponse)); n != 2 {
		t.Errorf("%d answers recorded, want 2", n)
	}
}
