package eventstream_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/sweatpants-go/sweatpants/agents"
	"github.com/sweatpants-go/sweatpants/elicit"
	"github.com/sweatpants-go/sweatpants/internal/chat"
	"github.com/sweatpants-go/sweatpants/internal/eventstream"
	"github.com/sweatpants-go/sweatpants/internal/inbound"
	"github.com/sweatpants-go/sweatpants/internal/offline"
	"github.com/sweatpants-go/sweatpants/internal/pageview"
	"github.com/sweatpants-go/sweatpants/internal/registry"
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

// A side question whose answer was changed runs again as a new version of
// its thread (chat.Service.ChangeAnswer): the event stream tells the side
// run answered again and completing again, aside, HEAD's run untouched,
// after a restart too.
func TestTheEventStreamTellsASideAnswerChanged(t *testing.T) {
	s := startServer(t, registry.New(drinker), offline.New())
	conv, _ := s.svc.Create(t.Context(), "s", "drinker")
	if err := s.svc.Send(t.Context(), "s", conv.ID, "go"); err != nil {
		t.Fatal(err)
	}
	waitView(t, s.svc, "s", conv.ID, "the flow's question", func(v pageview.View) bool { return pendingElicit(v) != nil })
	if sent, err := s.svc.SendMessage(t.Context(), "s", conv.ID, inbound.Message{Text: "what drink is there?"}); err != nil || sent != inbound.SentSide {
		t.Fatalf("sent %q, err %v; want a side question", sent, err)
	}
	v := waitView(t, s.svc, "s", conv.ID, "the side question's question", func(v pageview.View) bool {
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
	repliedSides(t, s.svc, conv.ID, 2)
	if err := s.svc.ChangeAnswer(t.Context(), "s", conv.ID, side, pick("coffee")); err != nil {
		t.Fatalf("changing the side answer: %v", err)
	}
	waitView(t, s.svc, "s", conv.ID, "the side question answered again", func(v pageview.View) bool {
		sides := sideItems(v)
		return len(sides) == 1 && sides[0].Replied && sides[0].Reply == "your drink: coffee"
	})
	s.restart()

	es, err := eventstream.Open(t.Context(), s.svc, "s", conv.ID, "")
	if err != nil {
		t.Fatal(err)
	}
	defer es.Close()
	var replies []string
	answered := 0
	for len(replies) < 3 {
		evs, err := es.Next(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range evs {
			switch d := e.Data.(type) {
			case eventstream.ElicitAnswered:
				if d.Elicit == side && d.Aside {
					answered++
				}
			case eventstream.RunCompleted:
				if d.Aside {
					replies = append(replies, d.Text)
				}
			}
		}
	}
	if want := []string{"your drink: tea", "said: and what else?", "your drink: coffee"}; !slices.Equal(replies, want) || answered != 2 {
		t.Errorf("the event stream's side runs completed %q with %d answers to the side question, want %q and 2", replies, answered, want)
	}
}
