package chat_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/sweatpants-go/sweatpants/agents"
	"github.com/sweatpants-go/sweatpants/elicit"
	"github.com/sweatpants-go/sweatpants/examples/demo"
	"github.com/sweatpants-go/sweatpants/internal/apperr"
	"github.com/sweatpants-go/sweatpants/internal/chat"
	"github.com/sweatpants-go/sweatpants/internal/kindset"
	"github.com/sweatpants-go/sweatpants/internal/offline"
	"github.com/sweatpants-go/sweatpants/internal/pageview"
	"github.com/sweatpants-go/sweatpants/internal/registry"
	"github.com/sweatpants-go/sweatpants/internal/tree"
)

// queue returns the pending elicits of v in queue order.
func queue(v pageview.View) []*pageview.ElicitView {
	var q []*pageview.ElicitView
	for i := range v.Items {
		if e := v.Items[i].Elicit; e != nil && e.State == pageview.Pending {
			q = append(q, e)
		}
	}
	return q
}

func byAgent(q []*pageview.ElicitView, agent string) *pageview.ElicitView {
	for _, e := range q {
		if e.Request.Agent == agent {
			return e
		}
	}
	return nil
}

// Two agents asking at once: both questions wait, queued in the order
// asked, each naming its agent; answering one leaves the other as it was;
// a restart in between resumes the turn with the answered branch replayed
// and the other question still waiting under the same id.
func TestQuestionsOfAgentsAskingAtOnceQueueAndSurviveARestart(t *testing.T) {
	s := startServer(t, registry.New(demo.Agents(demo.Options{})...), offline.New())
	conv, err := s.svc.Create(t.Context(), "me", "showcase")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.svc.Send(t.Context(), "me", conv.ID, "both of you, together"); err != nil {
		t.Fatal(err)
	}
	v := waitView(t, s.svc, "me", conv.ID, "two questions", func(v pageview.View) bool { return len(queue(v)) == 2 })
	q := queue(v)
	for i, e := range q {
		if e.Position != i+1 || e.Queued != 2 {
			t.Errorf("question %d: position %d of %d, want %d of 2", i, e.Position, e.Queued, i+1)
		}
	}
	packer, diner := byAgent(q, "packer"), byAgent(q, "diner")
	if packer == nil || diner == nil {
		t.Fatalf("want one question from packer and one from diner, got %+v", q)
	}
	if packer.Request.ID == diner.Request.ID || !strings.Contains(packer.Request.ID, ".") {
		t.Errorf("ids %q and %q: each branch should number its calls under the group's id", packer.Request.ID, diner.Request.ID)
	}

	// The meal question's own text is accepted; the luggage question stays.
	if err := s.svc.Answer(t.Context(), "me", conv.ID, diner.Request.ID, accept(`{"else":"soup"}`)); err != nil {
		t.Fatal(err)
	}
	v = waitView(t, s.svc, "me", conv.ID, "one question left", func(v pageview.View) bool { return len(queue(v)) == 1 })
	if e := queue(v)[0]; e.Request.ID != packer.Request.ID || e.Position != 1 || e.Queued != 1 {
		t.Fatalf("left waiting: %+v, want the luggage question, first of one", e)
	}

	s.restart()

	v, err = s.svc.View(t.Context(), "me", conv.ID)
	if err != nil {
		t.Fatal(err)
	}
	if q := queue(v); len(q) != 1 || q[0].Request.ID != packer.Request.ID {
		t.Fatalf("after a restart the queue is %+v, want only %s", q, packer.Request.ID)
	}
	if err := s.svc.Answer(t.Context(), "me", conv.ID, packer.Request.ID, accept(`{"bags":2,"skis":true}`)); err != nil {
		t.Fatalf("answering the resumed question: %v", err)
	}
	v = waitView(t, s.svc, "me", conv.ID, "the reply", func(v pageview.View) bool { return !v.Status.Running })
	if got, want := lastItem(v).Text, "All set: 2 checked bag(s) and skis; soup for the meal."; got != want {
		t.Errorf("reply = %q, want %q", got, want)
	}
	if n := len(s.nodes(conv.ID, tree.ElicitRequest)); n != 2 {
		t.Errorf("%d questions recorded, want 2: the replay must not ask the meal again", n)
	}
}

// A tab watching the stream sees the queue grow: the question asked first
// is sent again when a second joins it, now "1 of 2".
func TestTheStreamTellsEachQuestionItsPlaceInTheQueue(t *testing.T) {
	s := startServer(t, registry.New(demo.Agents(demo.Options{})...), offline.New())
	conv, err := s.svc.Create(t.Context(), "me", "showcase")
	if err != nil {
		t.Fatal(err)
	}
	sub, _, err := s.svc.Subscribe(t.Context(), "me", conv.ID)
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Close()
	if err := s.svc.Send(t.Context(), "me", conv.ID, "both of you, together"); err != nil {
		t.Fatal(err)
	}
	shown := map[string]*pageview.ElicitView{} // the latest of each question the stream sent
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	for {
		u, err := sub.Next(ctx)
		changes, resync := u.Changes, u.Resync
		if err != nil {
			t.Fatalf("waiting for both questions to show 2 queued: %v; shown %+v", err, shown)
		}
		if resync != nil {
			t.Fatal("the subscriber fell behind; this test reads every change")
		}
		for _, c := range changes {
			if c.Item != nil && c.Item.Elicit != nil {
				shown[c.Item.Elicit.Request.ID] = c.Item.Elicit
			}
		}
		both := 0
		for _, e := range shown {
			if e.State == pageview.Pending && e.Queued == 2 {
				both++
			}
		}
		if both == 2 {
			return
		}
	}
}

// Stopping a turn withdraws every question it queued.
func TestStopWithdrawsEveryQueuedQuestion(t *testing.T) {
	svc, _ := newService(t, offline.New())
	conv, _ := svc.Create(t.Context(), "me", "showcase")
	if err := svc.Send(t.Context(), "me", conv.ID, "together"); err != nil {
		t.Fatal(err)
	}
	v := waitView(t, svc, "me", conv.ID, "two questions", func(v pageview.View) bool { return len(queue(v)) == 2 })
	q := queue(v)
	if err := svc.Stop(t.Context(), "me", conv.ID); err != nil {
		t.Fatal(err)
	}
	v = waitView(t, svc, "me", conv.ID, "the turn stopped", func(v pageview.View) bool { return !v.Status.Running })
	if n := len(queue(v)); n != 0 {
		t.Errorf("%d questions still pending after stop", n)
	}
	for _, e := range q {
		err := svc.Answer(t.Context(), "me", conv.ID, e.Request.ID, accept(`{"bags":1,"skis":false}`))
		if apperr.CodeOf(err) != apperr.Conflict {
			t.Errorf("answer to withdrawn %s: %v, want a conflict", e.Request.ID, err)
		}
	}
}

// Progress an implementation reports reaches the agent that listens and the
// page, and a progress report for a question that does not wait is refused.
func TestLocationProgressReachesTheAgentAndThePage(t *testing.T) {
	svc, _ := newService(t, offline.New())
	conv, _ := svc.Create(t.Context(), "me", "showcase")
	if err := svc.Send(t.Context(), "me", conv.ID, "where am i?"); err != nil {
		t.Fatal(err)
	}
	v := waitView(t, svc, "me", conv.ID, "the location request", func(v pageview.View) bool { return pendingElicit(v) != nil })
	eid := pendingElicit(v).Request.ID
	if k := pendingElicit(v).Request.Kind; k != "location" {
		t.Fatalf("kind %q, want location", k)
	}
	for _, stage := range []string{elicit.StageRequestingPermission, elicit.StageAcquiring} {
		if err := svc.Progress(t.Context(), "me", conv.ID, eid, elicit.Progress{Stage: stage}); err != nil {
			t.Fatal(err)
		}
		v = waitView(t, svc, "me", conv.ID, "stage "+stage, func(v pageview.View) bool {
			e := pendingElicit(v)
			return e != nil && e.Stage != nil && e.Stage.Stage == stage
		})
	}
	if err := svc.Answer(t.Context(), "me", conv.ID, eid, accept(`{"lat":38.7223,"lng":-9.1393,"accuracy":20}`)); err != nil {
		t.Fatal(err)
	}
	v = waitView(t, svc, "me", conv.ID, "the reply", func(v pageview.View) bool { return !v.Status.Running })
	want := "You are at 38.7223, -9.1393 (within 20 m). Your device went through: requesting-permission → acquiring."
	if got := lastItem(v).Text; got != want {
		t.Errorf("reply = %q, want %q", got, want)
	}
	err := svc.Progress(t.Context(), "me", conv.ID, eid, elicit.Progress{Stage: elicit.StageAcquiring})
	if apperr.CodeOf(err) != apperr.Conflict {
		t.Errorf("progress on an answered question: %v, want a conflict", err)
	}
}

// Answers that break a kind's rules are refused with the field to fix, the
// question stays pending, and nothing is recorded.
func TestKindRulesAreEnforcedByTheServer(t *testing.T) {
	cases := []struct {
		message string
		answer  chat.Answer
		field   string
	}{
		{"book a flight", accept(`{"flight":"SP101","seat":"30C"}`), "seat"},
		{"book a flight", accept(`{"flight":"XX999","seat":"3A"}`), "flight"},
		{"pick a colour", accept(`{"option":"red","else":"teal"}`), "else"},
		{"pick a colour", accept(`{"option":"mauve"}`), "option"},
		{"pick a colour", accept(`{}`), "option"},
		{"copy my code", accept(`{"copied":false}`), "copied"},
		{"where am i", accept(`{"lat":91,"lng":0}`), "lat"},
		{"where am i", accept(`{"lat":"north","lng":0}`), "lat"},
		{"confirm", accept(`{"yes":true,"really":true}`), "really"},
		{"paste", chat.Answer{Action: elicit.Other, Text: "no"}, ""},
	}
	for _, c := range cases {
		t.Run(c.message+" "+string(c.answer.Content), func(t *testing.T) {
			svc, db := newService(t, offline.New())
			conv, _ := svc.Create(t.Context(), "me", "showcase")
			if err := svc.Send(t.Context(), "me", conv.ID, c.message); err != nil {
				t.Fatal(err)
			}
			v := waitView(t, svc, "me", conv.ID, "the question", func(v pageview.View) bool { return pendingElicit(v) != nil })
			eid := pendingElicit(v).Request.ID
			before, _ := db.Nodes(t.Context(), conv.ID)

			err := svc.Answer(t.Context(), "me", conv.ID, eid, c.answer)
			if err == nil {
				t.Fatal("the answer was accepted")
			}
			var fields elicit.FieldErrors
			if c.field != "" && (!errors.As(err, &fields) || fields.For(c.field) == "") {
				t.Errorf("error %v does not name field %q", err, c.field)
			}
			after, _ := db.Nodes(t.Context(), conv.ID)
			if len(after) != len(before) {
				t.Errorf("%d nodes recorded by a refused answer", len(after)-len(before))
			}
			v, _ = svc.View(t.Context(), "me", conv.ID)
			if e := pendingElicit(v); e == nil || e.Request.ID != eid {
				t.Errorf("the question no longer waits: %+v", e)
			}
		})
	}
}

// The service checks answers by the rules of the kinds in its registry
// (Config.Kinds): without the flight kind there, an answer to a flight
// question is held to its schema alone; with it, to the kind's rule too.
func TestTheServiceChecksTheRulesOfTheKindsItIsGiven(t *testing.T) {
	takenSeat := accept(`{"flight":"SP101","seat":"30C"}`) // the schema allows it; the rule does not
	noFlight := accept(`{"flight":"XX999","seat":"3A"}`)   // the schema does not allow it
	cases := []struct {
		name  string
		kinds *kindset.Set
		// refused names the field each answer is refused on; empty means taken.
		takenSeat, noFlight string
	}{
		{"without the flight kind", kindset.New(elicit.BuiltinKinds()...), "", "flight"},
		{"with the flight kind", kindset.New(demo.Kinds()...), "seat", "flight"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			svc, _ := newServiceWith(t, chat.Config{Assistants: registry.New(demo.Agents(demo.Options{})...), Kinds: c.kinds, Model: offline.New()})
			conv, _ := svc.Create(t.Context(), "me", "showcase")
			if err := svc.Send(t.Context(), "me", conv.ID, "book a flight"); err != nil {
				t.Fatal(err)
			}
			v := waitView(t, svc, "me", conv.ID, "the question", func(v pageview.View) bool { return pendingElicit(v) != nil })
			eid := pendingElicit(v).Request.ID
			for _, a := range []struct {
				answer chat.Answer
				field  string
			}{{noFlight, c.noFlight}, {takenSeat, c.takenSeat}} {
				err := svc.Answer(t.Context(), "me", conv.ID, eid, a.answer)
				var fields elicit.FieldErrors
				switch got := errors.As(err, &fields); {
				case a.field == "" && err != nil:
					t.Errorf("%s: refused with %v, want it taken", a.answer.Content, err)
				case a.field != "" && (!got || fields.For(a.field) == ""):
					t.Errorf("%s: got %v, want it refused on %q", a.answer.Content, err, a.field)
				}
			}
		})
	}
}

// The options of a choice become the enum of its answer's schema, so a
// client shows, and the server enforces, exactly those.
func TestChoiceRequestsCarryTheirOptions(t *testing.T) {
	req, err := elicit.Choose.Request("Which?", elicit.ChoiceInput{Options: []string{"a", "b"}})
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := json.Marshal(req.Schema.Properties["option"].Enum)
	if string(raw) != `["a","b"]` {
		t.Errorf("option enum = %s", raw)
	}
	if other := elicit.Choose.Output.Properties["option"].Enum; len(other) != 0 {
		t.Errorf("the kind's own schema was changed: %v", other)
	}
}

// A turn stopped while its agent was finishing anyway ends as stopped, as
// the user was told: the reply that came too late is not recorded.
func TestAStoppedTurnEndsStoppedEvenIfTheAgentFinishes(t *testing.T) {
	stopped, finish := make(chan struct{}), make(chan struct{})
	stubborn := agents.Assistant{Name: "stubborn", Description: "Finishes whatever happens.",
		Turn: func(ctx context.Context, message string) (string, error) {
			close(stopped)
			<-finish // ignores its context
			return "Finished anyway.", nil
		}}
	s := startServer(t, registry.New(stubborn), offline.New())
	conv, err := s.svc.Create(t.Context(), "me", "stubborn")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.svc.Send(t.Context(), "me", conv.ID, "go"); err != nil {
		t.Fatal(err)
	}
	<-stopped
	if err := s.svc.Stop(t.Context(), "me", conv.ID); err != nil {
		t.Fatal(err)
	}
	close(finish)
	v := waitView(t, s.svc, "me", conv.ID, "the turn's end", func(v pageview.View) bool { return !v.Status.Running })
	if n := s.nodes(conv.ID, tree.Stopped); len(n) != 1 {
		t.Errorf("%d stopped nodes, want 1", len(n))
	}
	if n := s.nodes(conv.ID, tree.AssistantMessage); len(n) != 0 {
		t.Errorf("the late reply was recorded: %+v (last item %q)", n, lastItem(v).Text)
	}
}
