package mcp_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sweatpants-go/sweatpants/internal/chat"
	"github.com/sweatpants-go/sweatpants/internal/chat/chattest"
	"github.com/sweatpants-go/sweatpants/internal/mcp"
	"github.com/sweatpants-go/sweatpants/internal/offline"
	"github.com/sweatpants-go/sweatpants/internal/registry"
)

// A session that goes without a request for longer than SessionIdle is
// closed and forgotten, its record too (so no restart begins it again): a
// client that went away leaves nothing behind. A request of it then gets
// the protocol's 404, upon which a client begins a new session.
func TestASessionIdlePastItsTimeIsFreedAndAnswered404(t *testing.T) {
	tools := mcp.NewTools(testAgents()...)
	svc, db := chattest.New(t, chat.Config{Assistants: registry.New(tools.Assistant()), Model: offline.New(), DecideByRule: true})
	const idle = 300 * time.Millisecond
	srv := mcp.NewServer(mcp.Config{Chat: svc, Tools: tools, Owner: chat.NewSessionID(), Events: db, Sessions: db,
		SessionIdle: idle, Name: "t", Version: "1"})
	ts := httptest.NewServer(mcp.Handler(srv, "", nil))
	t.Cleanup(func() {
		ts.CloseClientConnections()
		ts.Close()
	})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "c", Version: "1"}, nil).Connect(ctx,
		&sdk.StreamableClientTransport{Endpoint: ts.URL, MaxRetries: -1, DisableStandaloneSSE: true},
		&sdk.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	id := cs.ID()
	if res := callTool(t, cs, &sdk.CallToolParams{Name: "calc.add", Arguments: map[string]any{"a": 1, "b": 2}}); res.IsError {
		t.Fatalf("a call: %q", text(res))
	}

	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		open := 0
		for range srv.SDK().Sessions() {
			open++
		}
		_, recorded, err := db.MCPSession(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if open == 0 && !recorded {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after %s idle: %d sessions open, recorded %v; want it closed and forgotten", idle, open, recorded)
		}
	}
	// The SDK's handler lets go of a closed session just after the session
	// ends: a request in that moment may still find it, so the next ones
	// are asked until one is answered 404 (a closed session takes no
	// request, so asking does not keep it open).
	var res *http.Response
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		req, _ := http.NewRequest("POST", ts.URL, strings.NewReader(`{"jsonrpc":"2.0","id":7,"method":"tools/list","params":{}}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Mcp-Session-Id", id)
		req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
		res, err = http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode == http.StatusNotFound || time.Now().After(deadline) {
			break
		}
	}
	if res.StatusCode != http.StatusNotFound {
		t.Errorf("a request of the session freed: %d; want 404, for the client to begin a new one", res.StatusCode)
	}
}
