package inbox

import (
	"testing"

	"github.com/sweatpants-go/sweatpants/internal/apperr"
	"github.com/sweatpants-go/sweatpants/internal/inbound"
	"github.com/sweatpants-go/sweatpants/internal/tree"
)

// A message sent again with its id answers as the first one did: found
// recorded on the tree or in the queue; a resend saying something else is
// a conflict; one never sent is new. Queued messages join into one, each
// keeping its id.
func TestAMessageIsFoundByItsID(t *testing.T) {
	recorded := tree.Node{ID: 1, Kind: tree.UserMessage, Payload: tree.MustEncode(tree.Message{ID: "m1", Text: "hello"})}
	ib := New(tree.NewIndex([]tree.Node{recorded}))

	if s, err := ib.Prior(inbound.Message{ID: "m1", Text: "hello"}); err != nil || s == nil || s.sent != inbound.SentTurn {
		t.Fatalf("a resend of a recorded message: %+v, %v; want it found as having started a turn", s, err)
	}
	if _, err := ib.Prior(inbound.Message{ID: "m1", Text: "other"}); apperr.CodeOf(err) != apperr.Conflict {
		t.Fatalf("a resend saying something else: %v, want Conflict", err)
	}
	if s, err := ib.Prior(inbound.Message{ID: "new", Text: "x"}); s != nil || err != nil {
		t.Fatalf("a new message: %+v, %v; want nothing prior", s, err)
	}

	ib.Queue(inbound.Message{ID: "q1", Text: "first"}, 5)
	ib.Queue(inbound.Message{Text: "second"}, 6)
	if s, _ := ib.Prior(inbound.Message{ID: "q1", Text: "first"}); s == nil || s.sent != inbound.SentQueued {
		t.Fatalf("a resend of a queued message: %+v, want it found queued", s)
	}
	if got := ib.Texts(); len(got) != 2 || got[0] != "first" || got[1] != "second" {
		t.Fatalf("Texts = %v", got)
	}
	m := Joined(ib.Take())
	if m.Text != "first\n\nsecond" || len(m.Parts) != 1 || m.Parts[0].ID != "q1" || len(m.Queued) != 2 {
		t.Fatalf("joined = %+v", m)
	}
	if len(ib.Texts()) != 0 {
		t.Fatal("the queue was not emptied")
	}
}
