package store

import (
	"context"
	"testing"
	"time"

	"github.com/sweatpants-go/sweatpants/internal/apperr"
)

// TestLooksAreRecordedNewestFirst: an operator's looks are kept with who
// looked, at whose conversation, at what and when (the store's clock), and
// listed newest first, bounded; a conversation's and a file's owner are
// found by their id alone, and an id of neither is NotFound.
func TestLooksAreRecordedNewestFirst(t *testing.T) { contract(t, testLooksAreRecordedNewestFirst) }

func testLooksAreRecordedNewestFirst(t *testing.T, target string) {
	now := time.UnixMilli(1_700_000_000_000)
	db := openTarget(t, target, Options{Now: func() time.Time { return now }})
	ctx := context.Background()
	newConversation(t, db, "ann-key", "c1")
	if got, err := db.ConversationOwner(ctx, "c1"); err != nil || got != "ann-key" {
		t.Errorf("owner of c1 = %q, %v; want ann-key", got, err)
	}
	if _, err := db.ConversationOwner(ctx, "nope"); apperr.CodeOf(err) != apperr.NotFound {
		t.Errorf("owner of a conversation that is not there: %v, want NotFound", err)
	}
	if _, err := db.UploadOwner(ctx, "nope"); apperr.CodeOf(err) != apperr.NotFound {
		t.Errorf("owner of a file that is not there: %v, want NotFound", err)
	}
	if _, _, err := db.SignIn(ctx, Identity{Issuer: "https://id.example", Subject: "ann"}, "s1", "acct-ann"); err != nil {
		t.Fatal(err)
	}
	if ok, err := db.AccountExists(ctx, "acct-ann"); err != nil || !ok {
		t.Errorf("AccountExists(acct-ann) = %v, %v; want true", ok, err)
	}
	if ok, err := db.AccountExists(ctx, "ann-key"); err != nil || ok {
		t.Errorf("AccountExists(a session) = %v, %v; want false", ok, err)
	}

	looks := []Look{
		{OperatorID: "op", OperatorEmail: "op@example.com", Conversation: "c1", Owner: "ann-key", What: "page"},
		{OperatorID: "op", OperatorEmail: "op@example.com", Conversation: "c1", Owner: "ann-key", What: "tree"},
		{OperatorID: "op", OperatorEmail: "op@example.com", Owner: "ann-key", What: "audit"},
	}
	for _, l := range looks {
		now = now.Add(time.Second)
		if err := db.RecordLook(ctx, l); err != nil {
			t.Fatal(err)
		}
	}
	got, err := db.Looks(ctx, 2)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 {
		t.Fatalf("Looks(2) = %d looks, want 2", len(got))
	}
	want := looks[2]
	want.At = now
	if !got[0].At.Equal(now) {
		t.Errorf("newest look at %v, want %v (the store's clock)", got[0].At, now)
	}
	got[0].At = now
	if got[0] != want {
		t.Errorf("newest look = %+v, want %+v", got[0], want)
	}
	if got[1].What != "tree" || got[1].Conversation != "c1" {
		t.Errorf("second look = %+v, want the tree of c1", got[1])
	}
}
