package calls_test

import (
	"strings"
	"testing"

	"github.com/sweatpants-go/sweatpants/examples/demo"
	"github.com/sweatpants-go/sweatpants/internal/calls"
	"github.com/sweatpants-go/sweatpants/internal/chat"
	"github.com/sweatpants-go/sweatpants/internal/chat/chattest"
	"github.com/sweatpants-go/sweatpants/internal/kindset"
	"github.com/sweatpants-go/sweatpants/internal/offline"
	"github.com/sweatpants-go/sweatpants/internal/registry"
	"github.com/sweatpants-go/sweatpants/llm"
)

// newService starts a chat service with the demo agents and model on a
// fresh database, and the listing of its calls.
func newService(t *testing.T, model llm.Provider) (*chat.Service, *calls.Service) {
	t.Helper()
	_, isOffline := model.(*offline.Provider)
	return newServiceWith(t, chat.Config{Assistants: registry.New(demo.Agents(demo.Options{})...), Kinds: kindset.New(demo.Kinds()...), Model: model,
		DecideByRule: isOffline}) // as the app has it
}

// newServiceWith starts a chat service configured by cfg on a fresh
// database, which it sets as cfg's Store, and the listing of its calls,
// read from that database as the app reads it.
func newServiceWith(t *testing.T, cfg chat.Config) (*chat.Service, *calls.Service) {
	t.Helper()
	svc, db := chattest.New(t, cfg)
	return svc, calls.New(db, svc)
}

var (
	waitView      = chattest.WaitView
	pendingElicit = chattest.PendingElicit
)

func sameLines(t *testing.T, what string, got, want []string) {
	t.Helper()
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("%s:\n got %q\nwant %q", what, got, want)
	}
}
