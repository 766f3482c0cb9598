package calls_test

import (
	"strings"
	"testing"
	"time"

	"github.com/sweatpants-go/sweatpants/backend/agents/demo"
	"github.com/sweatpants-go/sweatpants/backend/calls"
	"github.com/sweatpants-go/sweatpants/backend/chat"
	"github.com/sweatpants-go/sweatpants/backend/elicit"
	"github.com/sweatpants-go/sweatpants/backend/llm"
	"github.com/sweatpants-go/sweatpants/backend/llm/offline"
	"github.com/sweatpants-go/sweatpants/store/storetest"
)

// newService starts a chat service with the demo agents and model on a
// fresh database, and the listing of its calls.
func newService(t *testing.T, model llm.Provider) (*chat.Service, *calls.Service) {
	t.Helper()
	_, isOffline := model.(*offline.Provider)
	return newServiceWith(t, chat.Config{Assistants: demo.Agents(demo.Options{}), Kinds: elicit.NewKinds(demo.Kinds()...), Model: model,
		DecideByRule: isOffline}) // as the app has it
}

// newServiceWith starts a chat service configured by cfg on a fresh
// database, which it sets as cfg's Store, and the listing of its calls,
// read from that database as the app reads it.
func newServiceWith(t *testing.T, cfg chat.Config) (*chat.Service, *calls.Service) {
	t.Helper()
	db := storetest.Open(t)
	cfg.Store = db
	svc := chat.New(cfg)
	t.Cleanup(svc.Close)
	return svc, calls.New(db, svc)
}

// waitView waits until the conversation's view satisfies cond.
func waitView(t *testing.T, svc *chat.Service, session, id, what string, cond func(chat.View) bool) chat.View {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		v, err := svc.View(t.Context(), session, id)
		if err != nil {
			t.Fatal(err)
		}
		if cond(v) {
			return v
		}
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s; view: %+v", what, v)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func pendingElicit(v chat.View) *chat.ElicitView {
	for i := range v.Items {
		if e := v.Items[i].Elicit; e != nil && e.State == chat.Pending {
			return e
		}
	}
	return nil
}

func sameLines(t *testing.T, what string, got, want []string) {
	t.Helper()
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("%s:\n got %q\nwant %q", what, got, want)
	}
}
