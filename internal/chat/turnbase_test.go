package chat_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/sweatpants-go/sweatpants/agents"
	"github.com/sweatpants-go/sweatpants/elicit"
	"github.com/sweatpants-go/sweatpants/internal/chat"
	"github.com/sweatpants-go/sweatpants/internal/offline"
	"github.com/sweatpants-go/sweatpants/internal/pageview"
	"github.com/sweatpants-go/sweatpants/internal/registry"
	"github.com/sweatpants-go/sweatpants/internal/tree"
	"github.com/sweatpants-go/sweatpants/llm"
	"github.com/sweatpants-go/sweatpants/turn"
)

// chatter answers from the conversation so far, the history given to the
// model whole; a message that begins "check" is answered only once the
// user says yes, asked after the model call.
var chatter = agents.Assistant{Name: "chatter", Turn: func(ctx context.Context, message string) (string, error) {
	msgs, err := turn.History(ctx)
	if err != nil {
		return "", err
	}
	resp, err := turn.Sample(ctx, llm.Request{Messages: append([]llm.Message{{Role: llm.System, Content: "Answer briefly."}}, msgs...)})
	if err != nil {
		return "", err
	}
	if strings.HasPrefix(message, "check") {
		res, err := turn.Ask(ctx, elicit.Confirm, "Send it?", elicit.ConfirmInput{})
		if err != nil || !res.Content.Yes {
			return "not sent", err
		}
	}
	return resp.Content, nil
}}

// A turn's first model call records what the turn added to the
// conversation, not the conversation again: the fortieth turn's record is
// the size of the fifth's, and the request rebuilt from it is the whole
// one. After a restart, a turn whose first call continues the turn before
// is replayed from that record, and the check before a deploy finds it
// would resume.
func TestATurnsFirstModelCallRecordsWhatTheTurnAdded(t *testing.T) {
	s := startServer(t, registry.New(chatter), offline.New())
	ctx := t.Context()
	conv, err := s.svc.Create(ctx, "me", "chatter")
	if err != nil {
		t.Fatal(err)
	}
	const turns = 40
	for i := 1; i <= turns; i++ {
		if err := s.svc.Send(ctx, "me", conv.ID, fmt.Sprintf("message %d: %s", i, strings.Repeat("words ", 60))); err != nil {
			t.Fatal(err)
		}
		waitView(t, s.svc, "me", conv.ID, fmt.Sprintf("reply %d", i), func(v pageview.View) bool {
			replies := 0
			for _, it := range v.Items {
				if it.Kind == tree.AssistantMessage {
					replies++
				}
			}
			return replies == i && !v.Status.Running
		})
	}
	samples := s.nodes(conv.ID, tree.Sample)
	if len(samples) != turns {
		t.Fatalf("%d model calls recorded, want %d", len(samples), turns)
	}
	early, late := len(samples[4].Payload), len(samples[turns-1].Payload)
	t.Logf("the record of turn 5's call is %d bytes, of turn %d's %d", early, turns, late)
	if late > early*3/2 {
		t.Errorf("turn %d's call records %d bytes, turn 5's %d: a turn records the conversation again", turns, late, early)
	}
	whole := wholeRequest(t, s.db, conv.ID, samples[turns-1])
	if got, want := len(whole.Request.Messages), 1+2*turns-1; got != want {
		t.Errorf("turn %d's request rebuilt has %d messages, want %d", turns, got, want)
	}

	if err := s.svc.Send(ctx, "me", conv.ID, "check this one"); err != nil {
		t.Fatal(err)
	}
	v := waitView(t, s.svc, "me", conv.ID, "the question", func(v pageview.View) bool { return pendingElicit(v) != nil })
	eid := pendingElicit(v).Request.ID
	if rec, _ := tree.Decode[tree.SampleRecord](s.nodes(conv.ID, tree.Sample)[turns]); rec.Base == 0 {
		t.Fatal("the checked turn's call was recorded whole")
	}
	if got := checkWith(t, s, registry.New(chatter)); got.Turns != 1 || len(got.Diverged) != 0 {
		t.Errorf("the check before a deploy: %+v, want the one turn to resume", got)
	}
	s.restart()
	if err := s.svc.Answer(ctx, "me", conv.ID, eid, chat.Answer{Action: elicit.Accept, Content: []byte(`{"yes":true}`)}); err != nil {
		t.Fatal(err)
	}
	v = waitView(t, s.svc, "me", conv.ID, "the checked reply", func(v pageview.View) bool { return !v.Status.Running && pendingElicit(v) == nil })
	if last := lastItem(v); last.Kind != tree.AssistantMessage || last.Text == "not sent" {
		t.Errorf("after the restart the turn ended %q (%s), want the model's reply", last.Text, last.Kind)
	}
	if n := len(s.nodes(conv.ID, tree.Sample)); n != turns+1 {
		t.Errorf("%d model calls recorded after the replay, want %d: the replay called the model again", n, turns+1)
	}
}
