package chat_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sweatpants-go/sweatpants/elicit"
	"github.com/sweatpants-go/sweatpants/examples/demo"
	"github.com/sweatpants-go/sweatpants/internal/apperr"
	"github.com/sweatpants-go/sweatpants/internal/chat"
	"github.com/sweatpants-go/sweatpants/internal/chat/chattest"
	"github.com/sweatpants-go/sweatpants/internal/feed"
	"github.com/sweatpants-go/sweatpants/internal/inbound"
	"github.com/sweatpants-go/sweatpants/internal/kindset"
	"github.com/sweatpants-go/sweatpants/internal/offline"
	"github.com/sweatpants-go/sweatpants/internal/pageview"
	"github.com/sweatpants-go/sweatpants/internal/registry"
	"github.com/sweatpants-go/sweatpants/internal/store"
	"github.com/sweatpants-go/sweatpants/internal/tree"
	"github.com/sweatpants-go/sweatpants/llm"
	"github.com/sweatpants-go/sweatpants/llm/llmtest"
	"github.com/sweatpants-go/sweatpants/llm/openai"
)

// newService starts a service with the demo agents and model on a fresh
// database.
func newService(t *testing.T, model llm.Provider) (*chat.Service, *store.DB) {
	t.Helper()
	_, isOffline := model.(*offline.Provider)
	return newServiceWith(t, chat.Config{Assistants: registry.New(demo.Agents(demo.Options{})...), Kinds: kindset.New(demo.Kinds()...), Model: model,
		DecideByRule: isOffline}) // as the app has it
}

// newServiceWith starts a service configured by cfg on a fresh database,
// which it sets as cfg's Store.
func newServiceWith(t *testing.T, cfg chat.Config) (*chat.Service, *store.DB) {
	t.Helper()
	return chattest.New(t, cfg)
}

var (
	waitView      = chattest.WaitView
	pendingElicit = chattest.PendingElicit
)

func lastItem(v pageview.View) pageview.Item {
	if len(v.Items) == 0 {
		return pageview.Item{}
	}
	return v.Items[len(v.Items)-1]
}

func TestModelFailureIsShownAndTheChatGoesOn(t *testing.T) {
	plan := llmtest.Call("plan-trip", `{"request":"a trip"}`)
	fake := llmtest.NewServer(t, plan, llmtest.Fail(400, "the model refused the request"), plan, llmtest.Text("Day 1: ", "the sea."))
	svc, db := newService(t, openai.New(openai.Config{APIKey: "test", BaseURL: fake.URL, Model: "gpt-test"}))
	const session = "s1"
	conv, err := svc.Create(t.Context(), session, "concierge")
	if err != nil {
		t.Fatal(err)
	}
	answer := chat.Answer{Action: elicit.Accept, Content: json.RawMessage(`{"destination":"Nice","travellers":2,"cabin":"economy","hotel":false}`)}

	if err := svc.Send(t.Context(), session, conv.ID, "a trip"); err != nil {
		t.Fatal(err)
	}
	e := waitView(t, svc, session, conv.ID, "the form", func(v pageview.View) bool { return pendingElicit(v) != nil })
	if err := svc.Answer(t.Context(), session, conv.ID, pendingElicit(e).Request.ID, answer); err != nil {
		t.Fatal(err)
	}
	v := waitView(t, svc, session, conv.ID, "the turn's end", func(v pageview.View) bool { return !v.Status.Running })
	if it := lastItem(v); it.Kind != tree.TurnError || !strings.Contains(it.Text, "The model could not answer") {
		nodes, _ := db.Nodes(t.Context(), conv.ID)
		for _, n := range nodes {
			t.Logf("%d p=%d %s %s %.100s", n.ID, n.Parent, n.Kind, n.Ref, n.Payload)
		}
		t.Fatalf("last item = %+v, want the model's failure shown", it)
	}

	// The failure ended the turn cleanly: the next message runs a new one.
	if err := svc.Send(t.Context(), session, conv.ID, "try again"); err != nil {
		t.Fatal(err)
	}
	e = waitView(t, svc, session, conv.ID, "the second form", func(v pageview.View) bool { return pendingElicit(v) != nil })
	if err := svc.Answer(t.Context(), session, conv.ID, pendingElicit(e).Request.ID, answer); err != nil {
		t.Fatal(err)
	}
	v = waitView(t, svc, session, conv.ID, "the reply", func(v pageview.View) bool { return !v.Status.Running })
	if it := lastItem(v); it.Kind != tree.AssistantMessage || !strings.Contains(it.Text, "Day 1: the sea.") {
		t.Errorf("last item = %+v, want the model's reply", it)
	}
	nodes, err := db.Nodes(t.Context(), conv.ID)
	if err != nil {
		t.Fatal(err)
	}
	var samples int
	for _, n := range nodes {
		if n.Kind == tree.Sample {
			samples++
		}
	}
	if samples != 4 {
		t.Errorf("recorded %d model calls, want 4: each turn's choice of tool and its plan, the failed one included", samples)
		for _, n := range nodes {
			t.Logf("%d p=%d %s %s %.100s", n.ID, n.Parent, n.Kind, n.Ref, n.Payload)
		}
	}
}

func TestRetryAfterAModelFailureCallsTheModelAgainWithoutAskingAgain(t *testing.T) {
	fake := llmtest.NewServer(t, llmtest.Call("plan-trip", `{"request":"a trip"}`), llmtest.Fail(400, "the model refused the request"), llmtest.Text("Day 1: ", "the sea."))
	svc, db := newService(t, openai.New(openai.Config{APIKey: "test", BaseURL: fake.URL, Model: "gpt-test"}))
	const session = "s1"
	conv, err := svc.Create(t.Context(), session, "concierge")
	if err != nil {
		t.Fatal(err)
	}
	if err := svc.Send(t.Context(), session, conv.ID, "a trip"); err != nil {
		t.Fatal(err)
	}
	e := waitView(t, svc, session, conv.ID, "the form", func(v pageview.View) bool { return pendingElicit(v) != nil })
	answer := chat.Answer{Action: elicit.Accept, Content: json.RawMessage(`{"destination":"Nice","travellers":2,"cabin":"economy","hotel":false}`)}
	if err := svc.Answer(t.Context(), session, conv.ID, pendingElicit(e).Request.ID, answer); err != nil {
		t.Fatal(err)
	}
	v := waitView(t, svc, session, conv.ID, "the failure", func(v pageview.View) bool { return !v.Status.Running })
	failure := lastItem(v)
	if failure.Kind != tree.TurnError {
		t.Fatalf("last item = %+v, want the model's failure", failure)
	}

	if err := svc.Retry(t.Context(), session, conv.ID, failure.ID); err != nil {
		t.Fatal(err)
	}
	v = waitView(t, svc, session, conv.ID, "the retried reply", func(v pageview.View) bool {
		return pendingElicit(v) != nil || (!v.Status.Running && lastItem(v).Kind == tree.AssistantMessage)
	})
	if pendingElicit(v) != nil {
		t.Fatal("Retry asked the form again; want the recorded answer replayed")
	}
	if it := lastItem(v); !strings.Contains(it.Text, "Day 1: the sea.") || !strings.Contains(it.Text, "Nice") {
		t.Fatalf("last item = %+v, want the plan for the answer given before", it)
	}
	for _, it := range v.Items {
		if it.Kind == tree.TurnError {
			t.Fatalf("the failure is still on the branch: %+v", v.Items)
		}
	}
	nodes, err := db.Nodes(t.Context(), conv.ID)
	if err != nil {
		t.Fatal(err)
	}
	count := map[tree.Kind]int{}
	for _, n := range nodes {
		count[n.Kind]++
	}
	if count[tree.ElicitRequest] != 1 || count[tree.ElicitResponse] != 1 || count[tree.Sample] != 3 || count[tree.UserMessage] != 1 {
		t.Fatalf("recorded %v; want one question, one answer, one message and three model calls (the choice of tool, the failed plan, the plan)", count)
	}
	if got := fake.Requests(); len(got) != 3 {
		t.Fatalf("the model got %d requests, want 3", len(got))
	}
}

func TestRejectedAnswerChangesNothing(t *testing.T) {
	svc, db := newService(t, offline.New())
	conv, _ := svc.Create(t.Context(), "s", "survey")
	if err := svc.Send(t.Context(), "s", conv.ID, "1"); err != nil {
		t.Fatal(err)
	}
	v := waitView(t, svc, "s", conv.ID, "the question", func(v pageview.View) bool { return pendingElicit(v) != nil })
	eid := pendingElicit(v).Request.ID
	before, _ := db.Nodes(t.Context(), conv.ID)

	err := svc.Answer(t.Context(), "s", conv.ID, eid, chat.Answer{Action: elicit.Accept, Content: json.RawMessage(`{"answer":42}`)})
	if apperr.CodeOf(err) != apperr.Invalid || !strings.Contains(err.Error(), "answer: must be text") {
		t.Fatalf("invalid content: err = %v", err)
	}
	err = svc.Answer(t.Context(), "s", conv.ID, eid, chat.Answer{Action: elicit.Denied})
	if apperr.CodeOf(err) != apperr.Invalid {
		t.Fatalf("an action the form does not allow: err = %v", err)
	}
	after, _ := db.Nodes(t.Context(), conv.ID)
	if len(after) != len(before) {
		t.Errorf("rejected answers recorded %d nodes", len(after)-len(before))
	}
	v, _ = svc.View(t.Context(), "s", conv.ID)
	if e := pendingElicit(v); e == nil || e.Request.ID != eid || e.Problem == "" {
		t.Errorf("the question should still wait, showing the problem: %+v", e)
	}
	if err := svc.Answer(t.Context(), "s", conv.ID, eid, chat.Answer{Action: elicit.Accept, Content: json.RawMessage(`{"answer":"fine"}`)}); err != nil {
		t.Fatalf("a valid answer after rejected ones: %v", err)
	}
}

func TestSlowSubscriberIsResyncedToTheCurrentState(t *testing.T) {
	svc, _ := newService(t, offline.New())
	conv, _ := svc.Create(t.Context(), "s", "survey")
	sub, _, err := svc.Subscribe(t.Context(), "s", conv.ID)
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Close()

	// Many round trips while the subscriber reads nothing: far more changes
	// than its queue holds.
	const rounds = 120
	if err := svc.Send(t.Context(), "s", conv.ID, "120"); err != nil {
		t.Fatal(err)
	}
	for i := range rounds {
		v := waitView(t, svc, "s", conv.ID, "a question", func(v pageview.View) bool { return pendingElicit(v) != nil || !v.Status.Running })
		e := pendingElicit(v)
		if e == nil {
			t.Fatalf("no question at round %d", i)
		}
		if err := svc.Answer(t.Context(), "s", conv.ID, e.Request.ID, chat.Answer{Action: elicit.Accept, Content: json.RawMessage(`{"answer":"a"}`)}); err != nil {
			t.Fatal(err)
		}
	}
	final := waitView(t, svc, "s", conv.ID, "the end", func(v pageview.View) bool { return !v.Status.Running })

	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
	defer cancel()
	u, err := sub.Next(ctx)
	changes, resync := u.Changes, u.Resync
	if err != nil {
		t.Fatal(err)
	}
	if resync == nil {
		t.Fatalf("got %d queued changes, want one resync after falling behind", len(changes))
	}
	if len(resync.Items) != len(final.Items) || lastItem(*resync).Text != "Thanks — all 120 answers recorded." {
		t.Errorf("resync shows %d items ending %q, want the final %d", len(resync.Items), lastItem(*resync).Text, len(final.Items))
	}
}

func TestAnotherSessionCannotSeeOrAct(t *testing.T) {
	svc, _ := newService(t, offline.New())
	conv, _ := svc.Create(t.Context(), "owner", "survey")
	for name, err := range map[string]error{
		"view":   func() error { _, err := svc.View(t.Context(), "intruder", conv.ID); return err }(),
		"send":   svc.Send(t.Context(), "intruder", conv.ID, "hi"),
		"answer": svc.Answer(t.Context(), "intruder", conv.ID, "1-1", chat.Answer{Action: elicit.Decline}),
	} {
		if apperr.CodeOf(err) != apperr.NotFound {
			t.Errorf("%s by another session: err = %v, want not found", name, err)
		}
	}
}

func TestStopHaltsAModelReplyMidStream(t *testing.T) {
	fake := llmtest.NewServer(t, llmtest.Call("plan-trip", `{"request":"a trip"}`), llmtest.Reply{Chunks: []string{"Day 1: "}, Hold: true})
	svc, db := newService(t, openai.New(openai.Config{APIKey: "k", BaseURL: fake.URL, Model: "m"}))
	conv, _ := svc.Create(t.Context(), "s", "concierge")
	if err := svc.Send(t.Context(), "s", conv.ID, "a trip"); err != nil {
		t.Fatal(err)
	}
	v := waitView(t, svc, "s", conv.ID, "the form", func(v pageview.View) bool { return pendingElicit(v) != nil })
	if err := svc.Answer(t.Context(), "s", conv.ID, pendingElicit(v).Request.ID,
		accept(`{"destination":"Rome","travellers":1,"cabin":"economy","hotel":false}`)); err != nil {
		t.Fatal(err)
	}
	waitView(t, svc, "s", conv.ID, "the reply streaming", func(v pageview.View) bool { return v.Status.Draft == "Day 1: " })
	if err := svc.Stop(t.Context(), "s", conv.ID); err != nil {
		t.Fatal(err)
	}
	v = waitView(t, svc, "s", conv.ID, "the turn to stop", func(v pageview.View) bool { return !v.Status.Running })
	if it := lastItem(v); it.Kind != tree.Stopped {
		t.Errorf("last item = %+v, want the turn marked stopped", it)
	}
	if err := svc.Stop(t.Context(), "s", conv.ID); apperr.CodeOf(err) != apperr.Conflict {
		t.Errorf("stopping when nothing runs: err = %v, want a conflict", err)
	}
	nodes, _ := db.Nodes(t.Context(), conv.ID)
	for _, n := range nodes {
		if n.Kind == tree.AssistantMessage {
			t.Errorf("a stopped turn recorded a reply: %s", n.Payload)
		}
	}
}

func TestStopWithdrawsThePendingQuestion(t *testing.T) {
	svc, _ := newService(t, offline.New())
	conv, _ := svc.Create(t.Context(), "s", "survey")
	if err := svc.Send(t.Context(), "s", conv.ID, "2"); err != nil {
		t.Fatal(err)
	}
	v := waitView(t, svc, "s", conv.ID, "the question", func(v pageview.View) bool { return pendingElicit(v) != nil })
	eid := pendingElicit(v).Request.ID
	if err := svc.Stop(t.Context(), "s", conv.ID); err != nil {
		t.Fatal(err)
	}
	v = waitView(t, svc, "s", conv.ID, "the turn to stop", func(v pageview.View) bool { return !v.Status.Running })
	for _, it := range v.Items {
		if it.Elicit != nil && it.Elicit.State != pageview.Interrupted {
			t.Errorf("the withdrawn question is not shown withdrawn: %+v", it.Elicit)
		}
	}
	err := svc.Answer(t.Context(), "s", conv.ID, eid, accept(`{"answer":"late"}`))
	if apperr.CodeOf(err) != apperr.Conflict {
		t.Errorf("answering a withdrawn question: err = %v, want a conflict", err)
	}
	// The chat is ready for input again.
	if err := svc.Send(t.Context(), "s", conv.ID, "1"); err != nil {
		t.Fatalf("sending after a stop: %v", err)
	}
	waitView(t, svc, "s", conv.ID, "a new question", func(v pageview.View) bool { return pendingElicit(v) != nil })
}

func TestBranchOperationsRefuseNodesThatAreNotThisConversations(t *testing.T) {
	svc, db := newService(t, offline.New())
	mine, _ := svc.Create(t.Context(), "s", "survey")
	theirs, _ := svc.Create(t.Context(), "s", "survey")
	for _, c := range []string{mine.ID, theirs.ID} {
		if err := svc.Send(t.Context(), "s", c, "1"); err != nil {
			t.Fatal(err)
		}
		v := waitView(t, svc, "s", c, "the question", func(v pageview.View) bool { return pendingElicit(v) != nil })
		if err := svc.Answer(t.Context(), "s", c, pendingElicit(v).Request.ID, accept(`{"answer":"a"}`)); err != nil {
			t.Fatal(err)
		}
		waitView(t, svc, "s", c, "the end", func(v pageview.View) bool { return !v.Status.Running })
	}
	theirNodes, _ := db.Nodes(t.Context(), theirs.ID)
	var theirMsg, theirReply int64
	var theirQuestion string
	for _, n := range theirNodes {
		if n.Kind == tree.UserMessage {
			theirMsg = n.ID
		}
		if n.Kind == tree.AssistantMessage {
			theirReply = n.ID
		}
		if n.Kind == tree.ElicitRequest {
			theirQuestion = n.Ref
		}
	}
	before, _ := db.Nodes(t.Context(), mine.ID)
	reflog, _ := db.Reflog(t.Context(), mine.ID)

	for name, err := range map[string]error{
		"edit their message":         svc.Edit(t.Context(), "s", mine.ID, theirMsg, inbound.Message{Text: "hijack"}),
		"edit a missing message":     svc.Edit(t.Context(), "s", mine.ID, 999999, inbound.Message{Text: "hello"}),
		"switch to their message":    svc.Switch(t.Context(), "s", mine.ID, theirMsg),
		"switch to a missing node":   svc.Switch(t.Context(), "s", mine.ID, 999999),
		"change their answer":        svc.ChangeAnswer(t.Context(), "s", mine.ID, theirQuestion, accept(`{"answer":"b"}`)),
		"change a missing answer":    svc.ChangeAnswer(t.Context(), "s", mine.ID, "nope", accept(`{"answer":"b"}`)),
		"edit from another session":  svc.Edit(t.Context(), "intruder", mine.ID, before[0].ID, inbound.Message{Text: "hello"}),
		"retry their reply":          svc.Retry(t.Context(), "s", mine.ID, theirReply),
		"retry a missing reply":      svc.Retry(t.Context(), "s", mine.ID, 999999),
		"retry a message":            svc.Retry(t.Context(), "s", mine.ID, before[0].ID),
		"retry from another session": svc.Retry(t.Context(), "intruder", mine.ID, before[len(before)-1].ID),
	} {
		if apperr.CodeOf(err) != apperr.NotFound {
			t.Errorf("%s: err = %v, want not found", name, err)
		}
	}
	after, _ := db.Nodes(t.Context(), mine.ID)
	reflogAfter, _ := db.Reflog(t.Context(), mine.ID)
	if len(after) != len(before) || len(reflogAfter) != len(reflog) {
		t.Errorf("refused operations changed the record: %d→%d nodes, %d→%d reflog entries", len(before), len(after), len(reflog), len(reflogAfter))
	}
}

func TestEveryHeadMoveIsInTheReflog(t *testing.T) {
	svc, db := newService(t, offline.New())
	conv, _ := svc.Create(t.Context(), "s", "survey")
	question := func() string {
		v := waitView(t, svc, "s", conv.ID, "a question", func(v pageview.View) bool { return pendingElicit(v) != nil })
		return pendingElicit(v).Request.ID
	}
	if err := svc.Send(t.Context(), "s", conv.ID, "1"); err != nil {
		t.Fatal(err)
	}
	q := question()
	if err := svc.Answer(t.Context(), "s", conv.ID, q, accept(`{"answer":"first"}`)); err != nil {
		t.Fatal(err)
	}
	waitView(t, svc, "s", conv.ID, "the end", func(v pageview.View) bool { return !v.Status.Running })
	if err := svc.ChangeAnswer(t.Context(), "s", conv.ID, q, accept(`{"answer":"second"}`)); err != nil {
		t.Fatal(err)
	}
	v := waitView(t, svc, "s", conv.ID, "the new end", func(v pageview.View) bool { return !v.Status.Running })
	if b := v.Items[1].Branch; b == nil || b.Index != 2 || b.Count != 2 {
		t.Errorf("the changed answer's branch = %+v, want 2 of 2", b)
	}
	nodes, _ := db.Nodes(t.Context(), conv.ID)
	if err := svc.Edit(t.Context(), "s", conv.ID, nodes[0].ID, inbound.Message{Text: "2"}); err != nil {
		t.Fatal(err)
	}
	question()
	if err := svc.Stop(t.Context(), "s", conv.ID); err != nil {
		t.Fatal(err)
	}
	waitView(t, svc, "s", conv.ID, "the stop", func(v pageview.View) bool { return !v.Status.Running })
	if err := svc.Switch(t.Context(), "s", conv.ID, nodes[0].ID); err != nil {
		t.Fatal(err)
	}
	log, _ := db.Reflog(t.Context(), conv.ID)
	var actions []tree.Action
	for _, e := range log {
		actions = append(actions, e.Action)
	}
	want := []tree.Action{tree.ActSwitch, tree.ActCancel, tree.ActEdit, tree.ActRewind, tree.ActMessage}
	if !slices.Equal(actions, want) {
		t.Errorf("reflog actions (newest first) = %v, want %v", actions, want)
	}
	v, _ = svc.View(t.Context(), "s", conv.ID)
	if got := lastItem(v).Text; got != "Thanks — your answer is recorded." {
		t.Errorf("after switching back, the last item is %q", got)
	}
}

func TestSideQuestionIsAnsweredAsideAndTheQuestionStillWaits(t *testing.T) {
	svc, db := newService(t, offline.New())
	conv, _ := svc.Create(t.Context(), "s", "concierge")
	if err := svc.Send(t.Context(), "s", conv.ID, "plan a trip"); err != nil {
		t.Fatal(err)
	}
	v := waitView(t, svc, "s", conv.ID, "the form", func(v pageview.View) bool { return pendingElicit(v) != nil })
	eid := pendingElicit(v).Request.ID
	head := v.Conversation.Head

	if err := svc.Send(t.Context(), "s", conv.ID, "What's the weather like in Oslo in May?"); err != nil {
		t.Fatal(err)
	}
	v = waitView(t, svc, "s", conv.ID, "the side reply", func(v pageview.View) bool {
		for _, it := range v.Items {
			if it.Kind == tree.SideQuestion && it.Replied {
				return true
			}
		}
		return false
	})
	if e := pendingElicit(v); e == nil || e.Request.ID != eid {
		t.Fatalf("after the side question the form is %+v, want %s still pending", e, eid)
	}
	if v.Conversation.Head != head {
		t.Errorf("HEAD moved from %d to %d; a side question must leave the flow where it was", head, v.Conversation.Head)
	}
	if it := lastItem(v); it.Kind != tree.SideQuestion || it.Text != "What's the weather like in Oslo in May?" || it.Reply == "" {
		t.Errorf("the side exchange shows as %+v", it)
	}
	log, _ := db.Reflog(t.Context(), conv.ID)
	if len(log) < 3 || log[0].Action != tree.ActReturn || log[1].Action != tree.ActFork || log[0].Head != head {
		t.Errorf("reflog = %+v, want fork then return to %d", log, head)
	}

	// The waiting question is still answerable, and the flow goes on.
	if err := svc.Answer(t.Context(), "s", conv.ID, eid, accept(`{"destination":"Oslo","travellers":2,"cabin":"economy","hotel":true}`)); err != nil {
		t.Fatal(err)
	}
	v = waitView(t, svc, "s", conv.ID, "the plan", func(v pageview.View) bool { return !v.Status.Running })
	if got := lastItem(v).Text; !strings.HasPrefix(got, "Your trip to Oslo is planned") {
		t.Errorf("reply = %q", got)
	}
}

func TestAMessageThatAnswersTheQuestionInWordsIsOther(t *testing.T) {
	svc, _ := newService(t, offline.New())
	conv, _ := svc.Create(t.Context(), "s", "concierge")
	if err := svc.Send(t.Context(), "s", conv.ID, "plan a trip"); err != nil {
		t.Fatal(err)
	}
	v := waitView(t, svc, "s", conv.ID, "the form", func(v pageview.View) bool { return pendingElicit(v) != nil })
	first := pendingElicit(v).Request.ID
	if err := svc.Send(t.Context(), "s", conv.ID, "Make it 3 travellers in business"); err != nil {
		t.Fatal(err)
	}
	v = waitView(t, svc, "s", conv.ID, "the form asked again", func(v pageview.View) bool {
		e := pendingElicit(v)
		return e != nil && e.Request.ID != first
	})
	var answered *pageview.ElicitView
	for _, it := range v.Items {
		if it.Elicit != nil && it.Elicit.Request.ID == first {
			answered = it.Elicit
		}
		if it.Kind == tree.SideQuestion {
			t.Errorf("the answer in words became a side question")
		}
	}
	if answered == nil || answered.Response == nil || answered.Response.Action != elicit.Other || answered.Response.Text != "Make it 3 travellers in business" {
		t.Fatalf("the first form's answer = %+v, want other with the text", answered)
	}
	if got := pendingElicit(v).Request.Message; !strings.Contains(got, "Make it 3 travellers in business") {
		t.Errorf("the agent asked again with %q, want it to quote what was said", got)
	}
}

func TestLongBranchesAreCompactedForTheModel(t *testing.T) {
	svc, db := newServiceWith(t, chat.Config{Assistants: registry.New(demo.Agents(demo.Options{})...), Kinds: kindset.New(demo.Kinds()...), Model: offline.New(), CompactTokens: 60})
	conv, _ := svc.Create(t.Context(), "s", "concierge")
	trip := func(city string) {
		t.Helper()
		if err := svc.Send(t.Context(), "s", conv.ID, "A trip to "+city); err != nil {
			t.Fatal(err)
		}
		v := waitView(t, svc, "s", conv.ID, "the form", func(v pageview.View) bool { return pendingElicit(v) != nil })
		if err := svc.Answer(t.Context(), "s", conv.ID, pendingElicit(v).Request.ID,
			accept(`{"destination":"`+city+`","travellers":1,"cabin":"economy","hotel":false}`)); err != nil {
			t.Fatal(err)
		}
		waitView(t, svc, "s", conv.ID, "the plan", func(v pageview.View) bool { return !v.Status.Running })
	}
	for _, city := range []string{"Oslo", "Riga", "Porto", "Turin"} {
		trip(city)
	}
	nodes, _ := db.Nodes(t.Context(), conv.ID)
	var summaries []tree.SummaryRecord
	var lastPlan tree.SampleRecord
	users := 0
	for _, n := range nodes {
		switch n.Kind {
		case tree.Summary:
			var s tree.SummaryRecord
			json.Unmarshal(n.Payload, &s)
			summaries = append(summaries, s)
		case tree.Sample:
			var r tree.SampleRecord
			json.Unmarshal(n.Payload, &r)
			if strings.Contains(r.Request.Messages[0].Content, "travel concierge") {
				lastPlan = r
			}
		case tree.UserMessage:
			users++
		}
	}
	if len(summaries) == 0 {
		t.Fatal("four trips with a limit of 60 tokens made no summary")
	}
	if users != 4 {
		t.Errorf("%d user messages in the tree, want all 4: compaction must keep the originals", users)
	}
	var context []string
	for _, m := range lastPlan.Request.Messages {
		context = append(context, m.Content)
		if m.Content == "A trip to Oslo" {
			t.Errorf("the last plan's context still holds the first message itself, not its summary")
		}
	}
	joined := strings.Join(context, "\n")
	if !strings.Contains(joined, "Summary of the earlier conversation") {
		t.Errorf("the last plan's context does not use the summary:\n%s", joined)
	}
	// Compaction keeps the conversation: every reply stays a reply, each
	// summary says how many messages it stands for, and no summary
	// summarizes another (so the earliest trip never fades out).
	for _, n := range nodes {
		if n.Kind == tree.AssistantMessage {
			if m, _ := tree.Decode[tree.Message](n); !strings.HasPrefix(m.Text, "Your trip to ") || strings.Contains(m.Text, "Summary of") {
				t.Errorf("after compaction a reply reads %q, want a plan", m.Text)
			}
		}
	}
	summaryNodes := map[int64]bool{}
	for _, n := range nodes {
		if n.Kind == tree.Summary {
			summaryNodes[n.ID] = true
		}
	}
	for _, s := range summaries {
		if want := fmt.Sprintf("Summary of %d messages", s.Count); !strings.HasPrefix(s.Text, want) {
			t.Errorf("a summary covering %d messages reads %q", s.Count, s.Text)
		}
		for _, id := range s.Covers {
			if summaryNodes[id] {
				t.Errorf("a summary covers the summary %d", id)
			}
		}
	}
	if !strings.Contains(joined, "A trip to Oslo") {
		t.Errorf("the earliest trip dropped out of what the model is given:\n%s", joined)
	}
	log, _ := db.Reflog(t.Context(), conv.ID)
	compacts := 0
	for _, e := range log {
		if e.Action == tree.ActCompact {
			compacts++
		}
	}
	if compacts != len(summaries) {
		t.Errorf("%d compact entries in the reflog for %d summaries", compacts, len(summaries))
	}
}

func TestGCRemovesOnlyWhatNoOneCanReach(t *testing.T) {
	svc, db := newService(t, offline.New())
	conv, _ := svc.Create(t.Context(), "s", "survey")
	if err := svc.Send(t.Context(), "s", conv.ID, "1"); err != nil {
		t.Fatal(err)
	}
	waitView(t, svc, "s", conv.ID, "the question", func(v pageview.View) bool { return pendingElicit(v) != nil })
	nodes, _ := db.Nodes(t.Context(), conv.ID)
	discarded := nodes[0].ID
	if err := svc.Edit(t.Context(), "s", conv.ID, discarded, inbound.Message{Text: "1"}); err != nil { // the first branch is left behind
		t.Fatal(err)
	}
	v := waitView(t, svc, "s", conv.ID, "the new question", func(v pageview.View) bool { return pendingElicit(v) != nil })
	if err := svc.Send(t.Context(), "s", conv.ID, "A side question about nothing in particular"); err != nil {
		t.Fatal(err)
	}
	waitView(t, svc, "s", conv.ID, "the side reply", func(v pageview.View) bool { return lastItem(v).Replied })
	before, _ := db.Nodes(t.Context(), conv.ID)

	// Within the retention nothing goes: the reflog can still recover it all.
	if got, err := svc.GC(t.Context(), "s", conv.ID); err != nil || got != (chat.Collected{}) {
		t.Fatalf("GC within the retention = %+v, %v; want nothing removed", got, err)
	}
	// With the retention at zero, the discarded branch goes; HEAD's branch and its side question stay.
	got, err := svc.GC(chat.GCRetention.With(t.Context(), 0), "s", conv.ID)
	if err != nil {
		t.Fatal(err)
	}
	after, _ := db.Nodes(t.Context(), conv.ID)
	if got.Nodes == 0 || len(after) != len(before)-got.Nodes {
		t.Errorf("GC removed %+v; nodes %d → %d", got, len(before), len(after))
	}
	for _, n := range after {
		if n.ID == discarded {
			t.Errorf("the discarded branch's message %d survived", n.ID)
		}
	}
	v2, _ := svc.View(t.Context(), "s", conv.ID)
	if len(v2.Items) != len(v.Items)+1 || pendingElicit(v2) == nil {
		t.Errorf("HEAD's branch changed: %d items (want %d), pending %v", len(v2.Items), len(v.Items)+1, pendingElicit(v2) != nil)
	}
	if err := svc.Answer(t.Context(), "s", conv.ID, pendingElicit(v2).Request.ID, accept(`{"answer":"still works"}`)); err != nil {
		t.Errorf("the waiting question after GC: %v", err)
	}
}

// Two tabs acting on one conversation at once: the actions are serialized,
// exactly one answer stands, and every subscriber converges on one view.
func TestConcurrentActionsAreSerialized(t *testing.T) {
	svc, db := newService(t, offline.New())
	conv, _ := svc.Create(t.Context(), "s", "survey")
	tabA, _, _ := svc.Subscribe(t.Context(), "s", conv.ID)
	tabB, _, _ := svc.Subscribe(t.Context(), "s", conv.ID)
	defer tabA.Close()
	defer tabB.Close()
	if err := svc.Send(t.Context(), "s", conv.ID, "2"); err != nil {
		t.Fatal(err)
	}
	v := waitView(t, svc, "s", conv.ID, "the question", func(v pageview.View) bool { return pendingElicit(v) != nil })
	eid := pendingElicit(v).Request.ID

	const tabs = 8
	errs := make(chan error, tabs)
	for i := range tabs {
		go func() {
			errs <- svc.Answer(t.Context(), "s", conv.ID, eid, accept(fmt.Sprintf(`{"answer":"tab %d"}`, i)))
		}()
	}
	ok, conflicts := 0, 0
	for range tabs {
		switch err := <-errs; {
		case err == nil:
			ok++
		case apperr.CodeOf(err) == apperr.Conflict:
			conflicts++
		default:
			t.Errorf("answer: %v", err)
		}
	}
	if ok != 1 || conflicts != tabs-1 {
		t.Errorf("%d answers accepted and %d conflicts, want 1 and %d", ok, conflicts, tabs-1)
	}
	nodes, _ := db.Nodes(t.Context(), conv.ID)
	answers := 0
	for _, n := range nodes {
		if n.Kind == tree.ElicitResponse && n.Ref == eid {
			answers++
		}
	}
	if answers != 1 {
		t.Errorf("%d answers recorded, want 1", answers)
	}
	// Both tabs hear of the answer.
	for name, tab := range map[string]*feed.Follower{"A": tabA, "B": tabB} {
		ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
		heard := false
		for !heard {
			u, err := tab.Next(ctx)
			changes, resync := u.Changes, u.Resync
			if err != nil {
				t.Fatalf("tab %s never heard of the answer: %v", name, err)
			}
			if resync != nil {
				heard = true
			}
			for _, ch := range changes {
				if ch.Item != nil && ch.Item.Elicit != nil && ch.Item.Elicit.Request.ID == eid && ch.Item.Elicit.State == pageview.Answered {
					heard = true
				}
			}
		}
		cancel()
	}
}

func TestRetryAfterAStopAsksAgainOnANewBranch(t *testing.T) {
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
	stopped := v.Items[len(v.Items)-1]
	if stopped.Kind != tree.Stopped {
		t.Fatalf("the last item is a %s, want the stopped turn", stopped.Kind)
	}
	if err := svc.Retry(t.Context(), "s", conv.ID, stopped.ID); err != nil {
		t.Fatal(err)
	}
	v = waitView(t, svc, "s", conv.ID, "the question again", func(v pageview.View) bool { return pendingElicit(v) != nil })
	msg := v.Items[0]
	if msg.Kind != tree.UserMessage || msg.Text != "2" || msg.Branch == nil || msg.Branch.Index != 2 || msg.Branch.Count != 2 {
		t.Errorf("after a retry the first item is %+v (branch %+v), want the message \"2\" as version 2 of 2", msg, msg.Branch)
	}
}
