package store

import (
	"context"
	"testing"
	"time"

	"github.com/sweatpants-go/sweatpants/internal/apperr"
)

// A user's "Always allow" is kept for their session: listed, allowed once
// whatever the number of times it is given, moved with the conversations
// when the session rotates, and revoked by its owner alone.
func TestAlwaysRulesAreTheSessionsToListAndRevoke(t *testing.T) {
	contract(t, testAlwaysRulesAreTheSessionsToListAndRevoke)
}

func testAlwaysRulesAreTheSessionsToListAndRevoke(t *testing.T, target string) {
	ctx := context.Background()
	c := &clock{t: time.UnixMilli(1_700_000_000_000)}
	db := openAt(t, target, c)
	for _, s := range []string{"me", "you"} {
		if err := db.EnsureSession(ctx, s); err != nil {
			t.Fatal(err)
		}
	}
	first, err := db.AllowAlways(ctx, "me", "assistant", "remember_note")
	if err != nil {
		t.Fatal(err)
	}
	c.advance(time.Minute)
	again, err := db.AllowAlways(ctx, "me", "assistant", "remember_note")
	if err != nil {
		t.Fatal(err)
	}
	if again != first || !first.Created.Equal(c.now().Add(-time.Minute)) {
		t.Errorf("allowed again: %+v, want the first rule %+v, made a minute ago", again, first)
	}
	if _, err := db.AllowAlways(ctx, "you", "assistant", "remember_note"); err != nil {
		t.Fatal(err)
	}
	got, err := db.AlwaysAllowed(ctx, "me")
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0] != first {
		t.Fatalf("me's rules: %+v, want [%+v]", got, first)
	}

	t.Run("another session's rule is not found", func(t *testing.T) {
		if err := db.RevokeAlways(ctx, "you", first.ID); apperr.CodeOf(err) != apperr.NotFound {
			t.Errorf("revoked by another session: %v, want NotFound", err)
		}
	})

	t.Run("a rotation moves them", func(t *testing.T) {
		next, err := db.RotateSession(ctx, "me", "me2", handoff.Client, handoff.Within)
		if err != nil {
			t.Fatal(err)
		}
		moved, err := db.AlwaysAllowed(ctx, next)
		if err != nil || len(moved) != 1 || moved[0].ID != first.ID || moved[0].Session != next {
			t.Fatalf("rules of %s: %+v, %v; want the rule %d moved there", next, moved, err, first.ID)
		}
		if left, _ := db.AlwaysAllowed(ctx, "me"); len(left) != 0 {
			t.Errorf("the old session still has %+v", left)
		}
	})

	t.Run("revoked by its owner", func(t *testing.T) {
		if err := db.RevokeAlways(ctx, "me2", first.ID); err != nil {
			t.Fatal(err)
		}
		if left, _ := db.AlwaysAllowed(ctx, "me2"); len(left) != 0 {
			t.Errorf("after revoking: %+v", left)
		}
		if err := db.RevokeAlways(ctx, "me2", first.ID); apperr.CodeOf(err) != apperr.NotFound {
			t.Errorf("revoked twice: %v, want NotFound", err)
		}
	})
}
