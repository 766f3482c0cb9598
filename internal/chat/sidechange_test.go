package chat_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/sweatpants-go/sweatpants/agents"
	"github.com/sweatpants-go/sweatpants/elicit"
	"github.com/sweatpants-go/sweatpants/internal/apperr"
	"github.com/sweatpants-go/sweatpants/internal/chat"
	"github.com/sweatpants-go/sweatpants/internal/inbound"
	"github.com/sweatpants-go/sweatpants/internal/offline"
	"github.com/sweatpants-go/sweatpants/internal/pageview"
	"github.com/sweatpants-go/sweatpants/internal/registry"
	"github.com/sweatpants-go/sweatpants/internal/tree"
	"github.com/sweatpants-go/sweatpants/turn"
)

// drinker's flow asks to go on; on the side it asks which drink when asked
// about drinks, and otherwise says what it was asked.
var drinker = agents.Assistant{Name: "drinker", Turn: func(ctx context.Context, _ string) (string, error) {
	res, err := turn.Ask(ctx, elicit.Confirm, "Shall I go on?", elicit.ConfirmInput{})
	return "went on: " + string(res.Action), err
}, Side: func(ctx context.Context, m string) (string, error) {
	if !strings.Contains(m, "drink") {
		return "said: " + m, nil
	}
	res, err := turn.Ask(ctx, elicit.Choose, "Tea or coffee?", elicit.ChoiceInput{Options: []string{"tea", "coffee"}})
	if err != nil {
		return "", err
	}
	return "your drink: " + res.Content.Picked(), nil
}}

func pick(option string) chat.Answer {
	return chat.Answer{Action: elicit.Accept, Content: json.RawMessage(`{"option":"` + option + `"}`)}
}

// Changing the answer to a side turn's question runs that side question
// again from the new answer, as a new version of the thread: the flow's
// question still waits, HEAD stays, the old version is kept in the record
// and its follow-up goes with it; the page shows the new version, after a
// restart too.
func TestChangingASideAnswerRunsTheSideQuestionAgain(t *testing.T) {
	s := startServer(t, registry.New(drinker), offline.New())
	conv, _ := s.svc.Create(t.Context(), "s", "drinker")
	if err := s.svc.Send(t.Context(), "s", conv.ID, "go"); err != nil {
		t.Fatal(err)
	}
	v := waitView(t, s.svc, "s", conv.ID, "the flow's question", func(v pageview.View) bool { return pendingElicit(v) != nil })
	flow, head := pendingElicit(v).Request.ID, v.Conversation.Head
	if sent, err := s.svc.SendMessage(t.Context(), "s", conv.ID, inbound.Message{Text: "what drink is there?"}); err != nil || sent != inbound.SentSide {
		t.Fatalf("sent %q, err %v; want a side question", sent, err)
	}
	v = waitView(t, s.svc, "s", conv.ID, "the side question's question", func(v pageview.View) bool {
		sides := sideItems(v)
		return len(sides) == 1 && len(sides[0].Asks) == 1 && sides[0].Asks[0].Elicit.State == pageview.Pending
	})
	side := sideItems(v)[0].Asks[0].Elicit.Request.ID
	if err := s.svc.Answer(t.Context(), "s", conv.ID, side, pick("tea")); err != nil {
		t.Fatal(err)
	}
	repliedSides(t, s.svc, conv.ID, 1)
	if _, err := s.svc.SendMessage(t.Context(), "s", conv.ID, inbound.Message{Text: "and what else?"}); err != nil {
		t.Fatal(err)
	}
	v = repliedSides(t, s.svc, conv.ID, 2)
	if got := sideItems(v)[0].Reply; got != "your drink: tea" {
		t.Fatalf("the side reply = %q", got)
	}

	// A choice the question does not offer is refused, and nothing changes.
	if err := s.svc.ChangeAnswer(t.Context(), "s", conv.ID, side, pick("milk")); apperr.CodeOf(err) != apperr.Invalid {
		t.Fatalf("changing the side answer to an option not offered: err = %v, want Invalid", err)
	}
	if n := len(s.nodes(conv.ID, tree.ElicitResponse)); n != 1 {
		t.Fatalf("%d answers recorded after a refused change, want 1", n)
	}

	if err := s.svc.ChangeAnswer(t.Context(), "s", conv.ID, side, pick("coffee")); err != nil {
		t.Fatalf("changing the side answer: %v", err)
	}
	for range 2 { // as changed, then from the record after a restart
		v = waitView(t, s.svc, "s", conv.ID, "the side question answered again", func(v pageview.View) bool {
			sides := sideItems(v)
			return len(sides) == 1 && sides[0].Replied && sides[0].Reply == "your drink: coffee"
		})
		it := sideItems(v)[0]
		if len(it.Asks) != 1 || it.Asks[0].Elicit.State != pageview.Answered || it.Asks[0].Elicit.Answer()["option"] != "coffee" {
			t.Errorf("the side question's question shows %+v, want it answered coffee", it.Asks)
		}
		if e := pendingElicit(v); e == nil || e.Request.ID != flow || v.Conversation.Head != head {
			t.Errorf("the flow: pending %+v, HEAD %d; want %s still waiting at HEAD %d", e, v.Conversation.Head, flow, head)
		}
		s.restart()
	}
	if n := len(s.nodes(conv.ID, tree.ElicitResponse)); n != 2 {
		t.Errorf("%d side answers recorded, want both versions' (2)", n)
	}
	if n := len(s.nodes(conv.ID, tree.SideReply)); n != 3 {
		t.Errorf("%d side replies recorded, want the old version's two and the new one (3)", n)
	}

	// The thread goes on from the new version; the flow still works.
	if _, err := s.svc.SendMessage(t.Context(), "s", conv.ID, inbound.Message{Text: "and now?"}); err != nil {
		t.Fatal(err)
	}
	v = repliedSides(t, s.svc, conv.ID, 2)
	if got := sideItems(v)[1]; got.Reply != "said: and now?" {
		t.Errorf("the follow-up = %+v", got)
	}
	if err := s.svc.Answer(t.Context(), "s", conv.ID, flow, accept(`{"yes":true}`)); err != nil {
		t.Fatal(err)
	}
	v = waitView(t, s.svc, "s", conv.ID, "the flow's reply", func(v pageview.View) bool { return lastItem(v).Kind == tree.AssistantMessage })
	if got := lastItem(v).Text; got != "went on: accept" {
		t.Errorf("the flow's reply = %q", got)
	}
}

// Changing the answer of a side question that is not shown (or of no
// question at all) is NotFound, and records nothing.
func TestChangingAnUnknownAnswerIsNotFound(t *testing.T) {
	s := startServer(t, registry.New(drinker), offline.New())
	conv, _ := s.svc.Create(t.Context(), "s", "drinker")
	if err := s.svc.Send(t.Context(), "s", conv.ID, "go"); err != nil {
		t.Fatal(err)
	}
	waitView(t, s.svc, "s", conv.ID, "the flow's question", func(v pageview.View) bool { return pendingElicit(v) != nil })
	if err := s.svc.ChangeAnswer(t.Context(), "s", conv.ID, "999-1", pick("tea")); apperr.CodeOf(err) != apperr.NotFound {
		t.Errorf("err = %v, want NotFound", err)
	}
}
