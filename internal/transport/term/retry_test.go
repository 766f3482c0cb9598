package term

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/sweatpants-go/sweatpants/agents"
	"github.com/sweatpants-go/sweatpants/elicit"
	"github.com/sweatpants-go/sweatpants/internal/chat"
	"github.com/sweatpants-go/sweatpants/internal/chat/chattest"
	"github.com/sweatpants-go/sweatpants/internal/offline"
	"github.com/sweatpants-go/sweatpants/internal/pageview"
	"github.com/sweatpants-go/sweatpants/internal/registry"
	"github.com/sweatpants-go/sweatpants/internal/store/storetest"
	"github.com/sweatpants-go/sweatpants/internal/words"
	"github.com/sweatpants-go/sweatpants/turn"
)

// checkIn asks "Go on?"; release 2 reports progress first, a change
// deployed without turn.Version.
func checkIn(release int) agents.Assistant {
	return agents.Assistant{Name: "check-in", Turn: func(ctx context.Context, message string) (string, error) {
		if release >= 2 {
			if err := turn.Notify(ctx, "Looking up your booking", -1); err != nil {
				return "", err
			}
		}
		if _, err := turn.Ask(ctx, elicit.Confirm, "Go on?", elicit.ConfirmInput{}); err != nil {
			return "", err
		}
		return fmt.Sprintf("done by release %d", release), nil
	}}
}

// A conversation continued at the terminal whose waiting turn the
// assistant's changed code cannot continue says so in plain words, and
// /retry starts the turn again from the message, so the user goes on.
func TestADivergedTurnIsToldAndRetriedAtTheTerminal(t *testing.T) {
	path := filepath.Join(t.TempDir(), "terminal.db")
	db := storetest.OpenAt(t, path)
	svc := chat.New(chat.Config{Store: db, Assistants: registry.New(checkIn(1)), Model: offline.New()})
	conv, err := svc.Create(t.Context(), "s", "check-in")
	if err != nil {
		t.Fatal(err)
	}
	if err := svc.Send(t.Context(), "s", conv.ID, "check me in"); err != nil {
		t.Fatal(err)
	}
	chattest.WaitView(t, svc, "s", conv.ID, "the question", func(v pageview.View) bool { return chattest.PendingElicit(v) != nil })
	svc.Close()
	db.Close()

	c := startConsoleOn(t, storetest.OpenAt(t, path), chat.Config{Assistants: registry.New(checkIn(2)), Model: offline.New()}, Config{Conversation: conv.ID})
	c.expect("! " + words.DivergedText)
	c.expect("/retry")
	c.expect("you> ")
	c.send("/retry")
	c.expect("Go on?")
	c.send("y")
	c.expect("check-in> done by release 2")
}
