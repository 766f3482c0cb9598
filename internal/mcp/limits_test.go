package mcp_test

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sweatpants-go/sweatpants/internal/chat"
	"github.com/sweatpants-go/sweatpants/internal/chat/chattest"
	"github.com/sweatpants-go/sweatpants/internal/inbound"
	"github.com/sweatpants-go/sweatpants/internal/mcp"
	"github.com/sweatpants-go/sweatpants/internal/offline"
	"github.com/sweatpants-go/sweatpants/internal/registry"
)

// limitedServer serves the test agents' tools with /mcp taking bodies of
// at most maxBody bytes (0: the default).
func limitedServer(t *testing.T, maxBody int64) *mcp.Server {
	t.Helper()
	tools := mcp.NewTools(testAgents()...)
	svc, _ := chattest.New(t, chat.Config{Assistants: registry.New(tools.Assistant()), Model: offline.New(), DecideByRule: true})
	return mcp.NewServer(mcp.Config{Chat: svc, Tools: tools, Owner: chat.NewSessionID(), MaxBody: maxBody, Name: "t", Version: "1"})
}

// A tool's arguments are bounded by the request that carries them, not by
// the chat composer's limit on a message a person types: a call whose
// arguments are longer than inbound.MaxMessageLen runs.
func TestAToolsArgumentsAreNotBoundByTheComposersLimit(t *testing.T) {
	eachRevision(t, func(t *testing.T, rev string) {
		cs := connectHTTPAt(t, rev, mcp.Handler(limitedServer(t, 1<<20), "", nil), nil, nil)
		long := strings.Repeat("x", 3*inbound.MaxMessageLen)
		res := callTool(t, cs, &sdk.CallToolParams{Name: "host.add", Arguments: map[string]any{"greeting": long}})
		if got := text(res); res.IsError || got != `{"text":"added `+long+`"}` {
			t.Errorf("a call with %d characters of arguments: %.200q (error %v); want it run", len(long), got, res.IsError)
		}
	})
}

// /mcp takes the body size it is configured with (--max-body), below the
// SDK's 4 MiB or above: a larger body is refused 413, saying the bound.
func TestMCPHonoursItsMaxBody(t *testing.T) {
	const bound = 4 << 10
	h := mcp.Handler(limitedServer(t, bound), "", nil)
	ts := httptest.NewServer(h)
	t.Cleanup(ts.Close)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "c", Version: "1"}, nil).
		Connect(ctx, &sdk.StreamableClientTransport{Endpoint: ts.URL, MaxRetries: -1}, &sdk.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	small := callTool(t, cs, &sdk.CallToolParams{Name: "host.add", Arguments: map[string]any{"greeting": "tea"}})
	if small.IsError {
		t.Fatalf("a small call: %q", text(small))
	}
	body := `{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"host.add","arguments":{"greeting":"` + strings.Repeat("x", bound) + `"}}}`
	req, _ := http.NewRequest("POST", ts.URL, bytes.NewBufferString(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Session-Id", cs.ID())
	req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusRequestEntityTooLarge {
		t.Errorf("a body over the bound of %d bytes: %d; want 413", bound, res.StatusCode)
	}
}
