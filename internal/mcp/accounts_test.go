package mcp_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sweatpants-go/sweatpants/internal/chat"
	"github.com/sweatpants-go/sweatpants/internal/chat/chattest"
	"github.com/sweatpants-go/sweatpants/internal/mcp"
	"github.com/sweatpants-go/sweatpants/internal/offline"
	"github.com/sweatpants-go/sweatpants/internal/registry"
)

// tokens are personal MCP tokens as the store keeps them: which account
// each stands for, until revoked.
type tokens struct {
	mu sync.Mutex
	of map[string]string
}

func (ts *tokens) MCPTokenAccount(_ context.Context, token string) (string, bool, error) {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	a, ok := ts.of[token]
	return a, ok, nil
}

func (ts *tokens) revoke(token string) {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	delete(ts.of, token)
}

// TestPersonalTokensCallAsTheirAccounts: a call made with an account's
// personal MCP token is a conversation of that account, which the other
// account does not see; the program's token still calls as the program's
// own session; a wrong or revoked token is refused 401, and a session of
// one account refuses the other's token, recording nothing.
func TestPersonalTokensCallAsTheirAccounts(t *testing.T) {
	eachRevision(t, func(t *testing.T, rev string) {
		f := newFixture(t)
		ctx := context.Background()
		ann, bob := chat.NewSessionID(), chat.NewSessionID()
		accounts := &tokens{of: map[string]string{"tok-ann": ann, "tok-bob": bob}}
		h := mcp.Handler(f.srv, "program-token", accounts)
		ts := httptest.NewServer(h)
		t.Cleanup(ts.Close)

		sessions := map[string]*sdk.ClientSession{}
		for _, tok := range []string{"tok-ann", "tok-bob", "program-token"} {
			cs := connectHTTPAt(t, rev, h, nil, &http.Client{Transport: bearer{tok}})
			res := callTool(t, cs, &sdk.CallToolParams{Name: "calc.add", Arguments: map[string]any{"a": 1, "b": 2}})
			if res.IsError {
				t.Fatalf("%s: the call failed: %s", tok, text(res))
			}
			sessions[tok] = cs
		}
		owned := map[string]string{}
		for who, owner := range map[string]string{"ann": ann, "bob": bob, "the program": f.owner} {
			convs, err := f.svc.Conversations(ctx, owner)
			if err != nil {
				t.Fatal(err)
			}
			if len(convs) != 1 {
				t.Fatalf("%s owns %d conversations; want the one of its call", who, len(convs))
			}
			owned[who] = convs[0].ID
		}
		if owned["ann"] == owned["bob"] || owned["ann"] == owned["the program"] {
			t.Fatalf("conversations %v; want one of each owner's own", owned)
		}
		for _, other := range []string{bob, f.owner} {
			if _, err := f.svc.View(ctx, other, owned["ann"]); err == nil {
				t.Errorf("another owner reads ann's conversation")
			}
		}

		// Each refusal records nothing: no conversation, no turn (which
		// would update its conversation).
		count := func() (n string) {
			for _, owner := range []string{ann, bob, f.owner} {
				convs, _ := f.svc.Conversations(ctx, owner)
				for _, c := range convs {
					n += c.ID + "@" + c.Updated.String() + " "
				}
			}
			return n
		}
		before := count()
		post := func(token, session string) int {
			t.Helper()
			body := `{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"calc.add","arguments":{"a":5,"b":6}}}`
			req, _ := http.NewRequest(http.MethodPost, ts.URL, strings.NewReader(body))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			req.Header.Set("Mcp-Protocol-Version", sessions["tok-ann"].InitializeResult().ProtocolVersion)
			if rev >= "2026-07-28" {
				req.Header.Set("Mcp-Method", "tools/call")
				req.Header.Set("Mcp-Name", "calc.add")
			}
			if session != "" {
				req.Header.Set("Mcp-Session-Id", session)
			}
			if token != "" {
				req.Header.Set("Authorization", "Bearer "+token)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			return resp.StatusCode
		}
		for _, tok := range []string{"", "wrong", "tok-ann-not"} {
			if got := post(tok, ""); got != http.StatusUnauthorized {
				t.Errorf("a call with token %q: status %d; want 401", tok, got)
			}
		}
		if id := sessions["tok-ann"].ID(); id != "" {
			if got := post("tok-bob", id); got != http.StatusForbidden {
				t.Errorf("bob's token in ann's session: status %d; want 403", got)
			}
			if got := post("program-token", id); got != http.StatusForbidden {
				t.Errorf("the program's token in ann's session: status %d; want 403", got)
			}
		}
		accounts.revoke("tok-ann")
		if got := post("tok-ann", sessions["tok-ann"].ID()); got != http.StatusUnauthorized {
			t.Errorf("a call with a revoked token: status %d; want 401", got)
		}
		if after := count(); after != before {
			t.Errorf("refused calls recorded something: conversations %s, were %s", after, before)
		}
		// Bob's session goes on.
		if res := callTool(t, sessions["tok-bob"], &sdk.CallToolParams{Name: "calc.add", Arguments: map[string]any{"a": 2, "b": 2}}); res.IsError {
			t.Errorf("bob's next call failed: %s", text(res))
		}
	})
}

// TestARestartKeepsASessionItsAccounts: after a restart, a session begun
// with an account's token is begun again for that account only: another
// account's token finds no session (404), and the account's own client
// goes on in its conversation.
func TestARestartKeepsASessionItsAccounts(t *testing.T) {
	ann, bob := chat.NewSessionID(), chat.NewSessionID()
	r := newRestartableWith(t, &tokens{of: map[string]string{"tok-ann": ann, "tok-bob": bob}})
	cs := connectHTTPAt(t, "2025-11-25", http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		r.mu.Lock()
		h := r.h
		r.mu.Unlock()
		h.ServeHTTP(w, req)
	}), nil, &http.Client{Transport: bearer{"tok-ann"}})
	if res := callTool(t, cs, &sdk.CallToolParams{Name: "calc.add", Arguments: map[string]any{"a": 1, "b": 2}}); res.IsError {
		t.Fatalf("ann's call: %s", text(res))
	}
	r.restart()
	body := `{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"calc.add","arguments":{"a":5,"b":6}}}`
	req, _ := http.NewRequest(http.MethodPost, r.ts.URL, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", cs.InitializeResult().ProtocolVersion)
	req.Header.Set("Mcp-Session-Id", cs.ID())
	req.Header.Set("Authorization", "Bearer tok-bob")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != http.StatusNotFound {
		t.Errorf("bob's token in ann's session after a restart: %d %s, want 404", res.StatusCode, got)
	}
	if res := callTool(t, cs, &sdk.CallToolParams{Name: "calc.add", Arguments: map[string]any{"a": 2, "b": 2}}); res.IsError {
		t.Fatalf("ann's call after the restart: %s", text(res))
	}
	ctx := context.Background()
	if convs, _ := r.svc.Conversations(ctx, ann); len(convs) != 1 {
		t.Errorf("ann owns %d conversations after the restart; want her one, gone on", len(convs))
	}
	if convs, _ := r.svc.Conversations(ctx, bob); len(convs) != 0 {
		t.Errorf("bob owns %d conversations; want none", len(convs))
	}
}

// Beyond loopback with sign-in and no program token (PersonalOnly), a
// request without a personal token reaches nothing: 401, not the
// program's own session; one with a personal token calls as its account.
func TestWithPersonalTokensOnlyNoRequestIsTheProgramsOwn(t *testing.T) {
	tools := mcp.NewTools(testAgents()...)
	svc, _ := chattest.New(t, chat.Config{Assistants: registry.New(tools.Assistant()), Model: offline.New(), DecideByRule: true})
	owner, ann := chat.NewSessionID(), chat.NewSessionID()
	srv := mcp.NewServer(mcp.Config{Chat: svc, Tools: tools, Owner: owner, PersonalOnly: true, Name: "sweatpants-test", Version: "test"})
	h := mcp.Handler(srv, "", &tokens{of: map[string]string{"tok-ann": ann}})
	ts := httptest.NewServer(h)
	t.Cleanup(ts.Close)
	for _, auth := range []string{"", "Bearer nope"} {
		req, _ := http.NewRequest(http.MethodPost, ts.URL, strings.NewReader(
			`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if auth != "" {
			req.Header.Set("Authorization", auth)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusUnauthorized {
			t.Errorf("a request with %q: %d, want 401", auth, resp.StatusCode)
		}
	}
	cs := connectHTTPAt(t, "", h, nil, &http.Client{Transport: bearer{"tok-ann"}})
	if res := callTool(t, cs, &sdk.CallToolParams{Name: "calc.add", Arguments: map[string]any{"a": 1, "b": 2}}); res.IsError {
		t.Fatalf("ann's call failed: %s", text(res))
	}
	if convs, _ := svc.Conversations(t.Context(), ann); len(convs) != 1 {
		t.Errorf("ann owns %d conversations, want her call's", len(convs))
	}
	if convs, _ := svc.Conversations(t.Context(), owner); len(convs) != 0 {
		t.Errorf("the program's own session owns %d conversations, want none", len(convs))
	}
}
