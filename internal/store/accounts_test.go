package store

import (
	"context"
	"slices"
	"testing"

	"github.com/sweatpants-go/sweatpants/internal/store/pgtest"
)

// TestAccountsOwnConversations: a sign-in makes the account once, and each
// sign-in of it stands for it; signing in claims a browser's anonymous
// conversations; a sign-out or a disabled account stands for nothing.
func TestAccountsOwnConversations(t *testing.T) { contract(t, testAccountsOwnConversations) }

func testAccountsOwnConversations(t *testing.T, target string) {
	db := openTarget(t, target, Options{})
	ctx := context.Background()
	ann := Identity{Issuer: "https://id.example", Subject: "ann", Email: "ann@example.com", Name: "Ann"}
	a, ok, err := db.SignIn(ctx, ann, "s1", "acct-ann")
	if err != nil || !ok || a.ID != "acct-ann" || a.Name != "Ann" {
		t.Fatalf("first sign-in = %+v %v %v; want the new account acct-ann", a, ok, err)
	}
	ann.Name = "Ann B."
	if a, ok, err := db.SignIn(ctx, ann, "s2", "unused"); err != nil || !ok || a.ID != "acct-ann" || a.Name != "Ann B." {
		t.Fatalf("second sign-in = %+v %v %v; want the same account, its name refreshed", a, ok, err)
	}
	// The browser's anonymous conversations become the account's.
	newConversation(t, db, "anon", "c1")
	newConversation(t, db, "someone", "c2")
	if claimed, err := db.ClaimSession(ctx, "anon", "acct-ann"); err != nil || !claimed {
		t.Fatalf("claim = %v, %v", claimed, err)
	}
	if got := owned(t, db, "acct-ann"); !slices.Equal(got, []string{"c1"}) {
		t.Errorf("the account owns %v, want c1", got)
	}
	if s, _ := db.Session(ctx, "anon", handoff.Client, handoff.Within); s != "" {
		t.Errorf("the claimed session leads to %q, want nothing", s)
	}
	// Another account's pinned session cannot be claimed.
	if _, _, err := db.SignIn(ctx, Identity{Issuer: "https://id.example", Subject: "bob"}, "s3", "acct-bob"); err != nil {
		t.Fatal(err)
	}
	if claimed, _ := db.ClaimSession(ctx, "acct-bob", "acct-ann"); claimed {
		t.Error("one account claimed another's")
	}
	if err := db.SignOut(ctx, "s1"); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := db.SignedIn(ctx, "s1"); ok {
		t.Error("a signed-out secret still stands for the account")
	}
	if a, ok, _ := db.SignedIn(ctx, "s2"); !ok || a.ID != "acct-ann" {
		t.Errorf("the account's other sign-in = %+v %v, want it kept", a, ok)
	}
	if err := db.DisableAccount(ctx, "acct-ann"); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := db.SignedIn(ctx, "s2"); ok {
		t.Error("a disabled account's sign-in still stands for it")
	}
	if _, ok, _ := db.SignIn(ctx, ann, "s4", "unused"); ok {
		t.Error("a disabled account signed in")
	}
}

// TestASignOutOnOneNodeReachesTheOthers: nothing of a sign-in is
// remembered by a node, so a sign-out on one holds on all at once.
func TestASignOutOnOneNodeReachesTheOthers(t *testing.T) {
	target := pgtest.Schema(t)
	one, two := openTarget(t, target, Options{}), openTarget(t, target, Options{})
	ctx := context.Background()
	if _, _, err := one.SignIn(ctx, Identity{Issuer: "i", Subject: "ann"}, "s1", "acct"); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := two.SignedIn(ctx, "s1"); !ok {
		t.Fatal("the second node does not see the sign-in")
	}
	if err := one.SignOut(ctx, "s1"); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := two.SignedIn(ctx, "s1"); ok {
		t.Error("after a sign-out on the first node the second still has it")
	}
}
