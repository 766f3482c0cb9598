package chat_test

import (
	"context"
	"testing"

	"github.com/sweatpants-go/sweatpants/agents"
	"github.com/sweatpants-go/sweatpants/internal/offline"
	"github.com/sweatpants-go/sweatpants/internal/registry"
	"github.com/sweatpants-go/sweatpants/turn"
)

// A turn's code learns which conversation it runs in from the runner
// (turn.ConversationID), each conversation its own, so that a tool can key
// what it does by it; outside a turn there is none.
func TestATurnKnowsItsConversation(t *testing.T) {
	teller := agents.Assistant{Name: "teller", Turn: func(ctx context.Context, _ string) (string, error) {
		return "in " + turn.ConversationID(ctx), nil
	}}
	s := startServer(t, registry.New(teller), offline.New())
	for range 2 {
		conv, err := s.svc.Create(t.Context(), "me", "")
		if err != nil {
			t.Fatal(err)
		}
		s.send("me", conv.ID, "where am I?")
		if got, want := s.reply("me", conv.ID), "in "+conv.ID; got != want {
			t.Errorf("the turn says %q, want %q", got, want)
		}
	}
	if id := turn.ConversationID(t.Context()); id != "" {
		t.Errorf("outside a turn, the conversation is %q, want none", id)
	}
}
