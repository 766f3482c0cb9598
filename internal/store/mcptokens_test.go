package store

import (
	"context"
	"strings"
	"testing"
)

// TestMCPTokensStandForTheirAccount: a personal MCP token stands for its
// account until it is revoked or the account disabled; only its hash is
// kept; one account cannot revoke another's token.
func TestMCPTokensStandForTheirAccount(t *testing.T) { contract(t, testMCPTokens) }

func testMCPTokens(t *testing.T, target string) {
	db := openTarget(t, target, Options{})
	ctx := context.Background()
	for _, who := range []string{"ann", "bob"} {
		if _, _, err := db.SignIn(ctx, Identity{Issuer: "i", Subject: who}, "s-"+who, "acct-"+who); err != nil {
			t.Fatal(err)
		}
	}
	made, token, err := db.MakeMCPToken(ctx, "acct-ann", "laptop")
	if err != nil {
		t.Fatal(err)
	}
	if acct, ok, err := db.MCPTokenAccount(ctx, token); err != nil || !ok || acct != "acct-ann" {
		t.Fatalf("the token stands for %q, %v, %v; want acct-ann", acct, ok, err)
	}
	var kept int
	if err := db.read.QueryRowContext(ctx, `SELECT COUNT(*) FROM mcp_tokens WHERE hash = ? OR hash LIKE ?`, token, "%"+strings.TrimPrefix(token, mcpTokenPrefix)+"%").Scan(&kept); err != nil || kept != 0 {
		t.Errorf("the token itself is kept (%d rows, %v), want only its hash", kept, err)
	}
	list, err := db.MCPTokens(ctx, "acct-ann")
	if err != nil || len(list) != 1 || list[0].ID != made.ID || list[0].Label != "laptop" || list[0].LastUsed.IsZero() {
		t.Fatalf("ann's tokens = %+v, %v; want the one made, used once", list, err)
	}
	if list, _ := db.MCPTokens(ctx, "acct-bob"); len(list) != 0 {
		t.Errorf("bob lists %d tokens, want none of ann's", len(list))
	}
	if _, ok, _ := db.MCPTokenAccount(ctx, token+"x"); ok {
		t.Error("a wrong token stands for an account")
	}
	if ok, err := db.RevokeMCPToken(ctx, "acct-bob", made.ID); err != nil || ok {
		t.Errorf("bob revoked ann's token: %v, %v", ok, err)
	}
	if ok, err := db.RevokeMCPToken(ctx, "acct-ann", made.ID); err != nil || !ok {
		t.Fatalf("ann could not revoke her token: %v, %v", ok, err)
	}
	if _, ok, _ := db.MCPTokenAccount(ctx, token); ok {
		t.Error("a revoked token still stands for its account")
	}
	_, other, _ := db.MakeMCPToken(ctx, "acct-bob", "")
	if err := db.DisableAccount(ctx, "acct-bob"); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := db.MCPTokenAccount(ctx, other); ok {
		t.Error("a disabled account's token still stands for it")
	}
}
