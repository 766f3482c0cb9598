package chat_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/sweatpants-go/sweatpants/agents"
	"github.com/sweatpants-go/sweatpants/elicit"
	"github.com/sweatpants-go/sweatpants/internal/apperr"
	"github.com/sweatpants-go/sweatpants/internal/chat"
	"github.com/sweatpants-go/sweatpants/internal/offline"
	"github.com/sweatpants-go/sweatpants/internal/pageview"
	"github.com/sweatpants-go/sweatpants/internal/registry"
	"github.com/sweatpants-go/sweatpants/internal/tree"
	"github.com/sweatpants-go/sweatpants/protocol"
	"github.com/sweatpants-go/sweatpants/turn"
)

type spotArgs struct {
	Accuracy string `json:"accuracy" enum:"high,low"`
}

type spotProgress struct {
	Status string `json:"status" enum:"requesting-permission,acquiring"`
}

type spot struct {
	Lat float64 `json:"lat" min:"-90" max:"90"`
	Lng float64 `json:"lng" min:"-180" max:"180"`
}

type spotNote struct {
	Note string `json:"note"`
}

var (
	// getSpot is the seed's getLocation, declared as an application
	// declares a method of its own.
	getSpot  = protocol.Declare[spotArgs, spotProgress, spot]("get-spot", "Share where you are")
	noteForm = elicit.Form[spotNote]()
)

// spotter calls getSpot and says how the call ended and the progress it
// heard, in its own words; asked "spot, then a note", it asks for a note
// after the call, so that the turn waits past the call's answer. Asked
// "spot live", it hands each report it hears to live as well.
func spotter(live chan<- string) agents.Assistant {
	return agents.Assistant{Name: "spotter", Turn: func(ctx context.Context, msg string) (string, error) {
		var heard []string
		out, err := protocol.Invoke(ctx, getSpot, "Where are you?", spotArgs{Accuracy: "high"}, func(p spotProgress) {
			heard = append(heard, p.Status)
			if msg == "spot live" {
				live <- p.Status
			}
		})
		if err != nil {
			return "", err
		}
		said := fmt.Sprintf("%s %v, heard %v", out.Status, out.Result, heard)
		if strings.HasSuffix(msg, "then a note") {
			n, err := turn.Ask(ctx, noteForm, "A note?", struct{}{})
			if err != nil {
				return "", err
			}
			said += ", noted " + n.Content.Note
		}
		return said, nil
	}}
}

// spotCall sends msg to a new conversation with the spotter and returns
// the conversation and the call it waits on.
func spotCall(t *testing.T, s *server, msg string) (conv, eid string) {
	t.Helper()
	c, err := s.svc.Create(t.Context(), "me", "spotter")
	if err != nil {
		t.Fatal(err)
	}
	s.send("me", c.ID, msg)
	v := waitView(t, s.svc, "me", c.ID, "the call", func(v pageview.View) bool {
		e := pendingElicit(v)
		return e != nil && e.Request.Kind == getSpot.Name
	})
	return c.ID, pendingElicit(v).Request.ID
}

// reportSpot reports both stages of the call, with their typed data.
func reportSpot(t *testing.T, svc *chat.Service, conv, eid string) {
	t.Helper()
	for _, st := range []string{"requesting-permission", "acquiring"} {
		if err := svc.Progress(t.Context(), "me", conv, eid, elicit.Progress{Stage: st, Data: json.RawMessage(`{"status":"` + st + `"}`)}); err != nil {
			t.Fatalf("progress %s: %v", st, err)
		}
	}
}

// A method's call is a durable question: the turn hears each progress
// report once, live; after a restart it replays the call from the record,
// hearing the recorded progress once and asking nothing again; a result
// that breaks the method's result schema is refused and nothing recorded;
// Stop withdraws the call; unsupported is an outcome the turn is given.
func TestAMethodsCallIsDurable(t *testing.T) {
	live := make(chan string, 4)
	s := startServer(t, registry.New(spotter(live)), offline.New())
	s.kinds = []elicit.Registered{getSpot, noteForm}
	s.restart()
	const where = `{"lat":38.72,"lng":-9.14}`

	t.Run("progress is heard once, live", func(t *testing.T) {
		conv, eid := spotCall(t, s, "spot live")
		reportSpot(t, s.svc, conv, eid)
		for _, want := range []string{"requesting-permission", "acquiring"} {
			select {
			case got := <-live:
				if got != want {
					t.Fatalf("the turn heard %q live, want %q", got, want)
				}
			case <-time.After(10 * time.Second):
				t.Fatalf("the turn did not hear %q while the call waited", want)
			}
		}
		if err := s.svc.Answer(t.Context(), "me", conv, eid, accept(where)); err != nil {
			t.Fatal(err)
		}
		if got, want := s.reply("me", conv), "done {38.72 -9.14}, heard [requesting-permission acquiring]"; got != want {
			t.Errorf("reply = %q, want %q", got, want)
		}
	})

	t.Run("a restart replays the call from the record", func(t *testing.T) {
		conv, eid := spotCall(t, s, "spot, then a note")
		reportSpot(t, s.svc, conv, eid)
		if err := s.svc.Answer(t.Context(), "me", conv, eid, accept(where)); err != nil {
			t.Fatal(err)
		}
		v := waitView(t, s.svc, "me", conv, "the note", func(v pageview.View) bool {
			e := pendingElicit(v)
			return e != nil && e.Request.Kind == elicit.FormKind
		})
		note := pendingElicit(v).Request.ID

		s.restart()
		if err := s.svc.Answer(t.Context(), "me", conv, note, accept(`{"note":"by the river"}`)); err != nil {
			t.Fatalf("answering the note after the restart: %v", err)
		}
		if got, want := s.reply("me", conv), "done {38.72 -9.14}, heard [requesting-permission acquiring], noted by the river"; got != want {
			t.Errorf("reply = %q, want %q: the replayed call hears its recorded progress once", got, want)
		}
		if n := len(s.nodes(conv, tree.ElicitRequest)); n != 2 {
			t.Errorf("%d questions recorded, want 2: the call was asked again", n)
		}
	})

	t.Run("a result that breaks the schema is refused", func(t *testing.T) {
		conv, eid := spotCall(t, s, "spot")
		before := len(s.nodes(conv, tree.ElicitResponse))
		for _, bad := range []string{`{"lat":"north","lng":0}`, `{"lat":120,"lng":0}`, `{"lat":1}`} {
			err := s.svc.Answer(t.Context(), "me", conv, eid, accept(bad))
			if apperr.CodeOf(err) != apperr.Invalid {
				t.Errorf("result %s: err = %v, want Invalid", bad, err)
			}
		}
		if err := s.svc.Answer(t.Context(), "me", conv, eid, chat.Answer{Action: elicit.Other, Text: "here"}); apperr.CodeOf(err) != apperr.Invalid {
			t.Errorf("an answer in words: err = %v, want Invalid: a method takes none", err)
		}
		if n := len(s.nodes(conv, tree.ElicitResponse)); n != before {
			t.Errorf("refused results recorded %d answers", n-before)
		}
		v, _ := s.svc.View(t.Context(), "me", conv)
		if e := pendingElicit(v); e == nil || e.Request.ID != eid {
			t.Fatalf("after refused results the call is %+v, want it still waiting", e)
		}
		if err := s.svc.Answer(t.Context(), "me", conv, eid, accept(where)); err != nil {
			t.Fatalf("a good result after refused ones: %v", err)
		}
		if got, want := s.reply("me", conv), "done {38.72 -9.14}, heard []"; got != want {
			t.Errorf("reply = %q, want %q", got, want)
		}
	})

	t.Run("Stop withdraws the call", func(t *testing.T) {
		conv, eid := spotCall(t, s, "spot")
		if err := s.svc.Stop(t.Context(), "me", conv); err != nil {
			t.Fatal(err)
		}
		v := waitView(t, s.svc, "me", conv, "the turn to stop", func(v pageview.View) bool { return !v.Status.Running })
		for _, it := range v.Items {
			if it.Elicit != nil && it.Elicit.State != pageview.Interrupted {
				t.Errorf("the withdrawn call is not shown withdrawn: %+v", it.Elicit)
			}
		}
		if err := s.svc.Answer(t.Context(), "me", conv, eid, accept(where)); apperr.CodeOf(err) != apperr.Conflict {
			t.Errorf("answering a withdrawn call: err = %v, want Conflict", err)
		}
		if err := s.svc.Progress(t.Context(), "me", conv, eid, elicit.Progress{Stage: "acquiring"}); apperr.CodeOf(err) != apperr.Conflict {
			t.Errorf("progress on a withdrawn call: err = %v, want Conflict", err)
		}
	})

	t.Run("unsupported is an outcome", func(t *testing.T) {
		conv, eid := spotCall(t, s, "spot")
		if err := s.svc.Answer(t.Context(), "me", conv, eid, chat.Answer{Action: elicit.Unsupported}); err != nil {
			t.Fatal(err)
		}
		if got, want := s.reply("me", conv), "unsupported {0 0}, heard []"; got != want {
			t.Errorf("reply = %q, want %q", got, want)
		}
	})
}
