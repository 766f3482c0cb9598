package store

import (
	"bytes"
	"context"
	"testing"
	"time"
)

func TestASecretIsMadeOnceAndKeptAcrossARestart(t *testing.T) {
	contract(t, testASecretIsMadeOnceAndKeptAcrossARestart)
}

func testASecretIsMadeOnceAndKeptAcrossARestart(t *testing.T, target string) {
	ctx := context.Background()
	db := openTarget(t, target, Options{})
	first, err := db.Secret(ctx, "key", 32)
	if err != nil {
		t.Fatal(err)
	}
	if len(first) != 32 || bytes.Equal(first, make([]byte, 32)) {
		t.Fatalf("secret = %x; want 32 random bytes", first)
	}
	other, err := db.Secret(ctx, "other", 32)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Equal(first, other) {
		t.Fatal("two secrets of other names are the same bytes")
	}
	db.Close()
	again, err := openTarget(t, target, Options{}).Secret(ctx, "key", 32)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(first, again) {
		t.Fatalf("after a restart the secret is %x; want %x, the one made before", again, first)
	}
}

// An MCP session recorded is found again after a restart, with what its
// client said of itself; a closed one, or one not begun again for long,
// is forgotten.
func TestMCPSessionsAreKeptUntilClosedOrIdle(t *testing.T) {
	contract(t, testMCPSessionsAreKeptUntilClosedOrIdle)
}

func testMCPSessionsAreKeptUntilClosedOrIdle(t *testing.T, target string) {
	ctx := context.Background()
	c := &clock{t: time.UnixMilli(1_700_000_000_000)}
	db := openAt(t, target, c)
	for _, s := range []struct{ id, init string }{{"closed", `{"a":1}`}, {"idle", `{"b":2}`}, {"busy", `{"c":3}`}} {
		if err := db.SaveMCPSession(ctx, s.id, []byte(s.init)); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()
	db = openAt(t, target, c)
	if init, ok, err := db.MCPSession(ctx, "idle"); err != nil || !ok || string(init) != `{"b":2}` {
		t.Fatalf("after a restart MCPSession(idle) = %s, %v, %v; want its init", init, ok, err)
	}
	c.advance(time.Hour)
	if err := db.SaveMCPSession(ctx, "busy", []byte(`{"c":4}`)); err != nil { // begun again
		t.Fatal(err)
	}
	if err := db.ForgetMCPSessions(ctx, "closed", time.Time{}); err != nil {
		t.Fatal(err)
	}
	if err := db.ForgetMCPSessions(ctx, "", c.now().Add(-time.Minute)); err != nil {
		t.Fatal(err)
	}
	for id, want := range map[string]string{"closed": "", "idle": "", "busy": `{"c":4}`} {
		init, ok, err := db.MCPSession(ctx, id)
		if err != nil || ok != (want != "") || string(init) != want {
			t.Errorf("MCPSession(%s) = %s, %v, %v; want %q", id, init, ok, err, want)
		}
	}
}
