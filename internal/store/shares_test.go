package store

import (
	"context"
	"testing"
	"time"

	"github.com/sweatpants-go/sweatpants/internal/apperr"
	"github.com/sweatpants-go/sweatpants/internal/tree"
)

// A share is found by its token's hash until it expires or its owner
// revokes it, is listed with its conversation, names a node the
// conversation has, and goes with the conversation when it is deleted.
func TestSharesAreFoundUntilRevokedOrExpired(t *testing.T) {
	contract(t, testSharesAreFoundUntilRevokedOrExpired)
}

func testSharesAreFoundUntilRevokedOrExpired(t *testing.T, target string) {
	ctx := context.Background()
	c := &clock{t: time.UnixMilli(1_700_000_000_000)}
	db := openAt(t, target, c)
	if err := db.EnsureSession(ctx, "me"); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"c1", "c2"} {
		if _, err := db.CreateConversation(ctx, tree.Conversation{ID: id, Session: "me", Agent: "assistant"}); err != nil {
			t.Fatal(err)
		}
	}
	first := appendMessage(t, db, "c1", 0, tree.UserMessage, "hello", false)
	other := appendMessage(t, db, "c2", 0, tree.UserMessage, "elsewhere", false)

	day, err := db.CreateShare(ctx, "c1", first.ID, "Hello", "hash-day", 24*time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	hour, err := db.CreateShare(ctx, "c1", first.ID, "Hello", "hash-hour", time.Hour)
	if err != nil {
		t.Fatal(err)
	}

	t.Run("found by its hash", func(t *testing.T) {
		got, err := db.ShareByToken(ctx, "hash-day")
		if err != nil || got != day {
			t.Errorf("got %+v, %v; want %+v", got, err, day)
		}
		if _, err := db.ShareByToken(ctx, "hash-none"); apperr.CodeOf(err) != apperr.NotFound {
			t.Errorf("a hash never given: %v, want NotFound", err)
		}
	})

	t.Run("a node of another conversation is refused", func(t *testing.T) {
		if _, err := db.CreateShare(ctx, "c1", other.ID, "Hello", "hash-bad", time.Hour); apperr.CodeOf(err) != apperr.Invalid {
			t.Errorf("got %v, want Invalid", err)
		}
		if _, err := db.ShareByToken(ctx, "hash-bad"); apperr.CodeOf(err) != apperr.NotFound {
			t.Errorf("the refused share was recorded: %v", err)
		}
	})

	t.Run("listed newest first", func(t *testing.T) {
		got, err := db.Shares(ctx, "c1")
		if err != nil || len(got) != 2 || got[0] != hour || got[1] != day {
			t.Errorf("got %+v, %v; want [%+v %+v]", got, err, hour, day)
		}
		if got, _ := db.Shares(ctx, "c2"); len(got) != 0 {
			t.Errorf("c2 lists %+v", got)
		}
	})

	t.Run("an expired share is gone", func(t *testing.T) {
		c.advance(time.Hour)
		if _, err := db.ShareByToken(ctx, "hash-hour"); apperr.CodeOf(err) != apperr.NotFound {
			t.Errorf("an hour later: %v, want NotFound", err)
		}
		if got, _ := db.Shares(ctx, "c1"); len(got) != 1 || got[0] != day {
			t.Errorf("listed %+v, want only %+v", got, day)
		}
	})

	t.Run("revoked by its conversation only", func(t *testing.T) {
		if err := db.RevokeShare(ctx, "c2", day.ID); apperr.CodeOf(err) != apperr.NotFound {
			t.Errorf("revoked through another conversation: %v, want NotFound", err)
		}
		if err := db.RevokeShare(ctx, "c1", day.ID); err != nil {
			t.Fatal(err)
		}
		if _, err := db.ShareByToken(ctx, "hash-day"); apperr.CodeOf(err) != apperr.NotFound {
			t.Errorf("after revoking: %v, want NotFound", err)
		}
		if err := db.RevokeShare(ctx, "c1", day.ID); apperr.CodeOf(err) != apperr.NotFound {
			t.Errorf("revoked twice: %v, want NotFound", err)
		}
	})

	t.Run("deleted with its conversation", func(t *testing.T) {
		if _, err := db.CreateShare(ctx, "c1", first.ID, "Hello", "hash-last", time.Hour); err != nil {
			t.Fatal(err)
		}
		if err := db.DeleteConversation(ctx, "me", "c1"); err != nil {
			t.Fatal(err)
		}
		if _, err := db.ShareByToken(ctx, "hash-last"); apperr.CodeOf(err) != apperr.NotFound {
			t.Errorf("after deleting the conversation: %v, want NotFound", err)
		}
	})
}
