package app

import (
	"context"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sweatpants-go/sweatpants/agents"
	"github.com/sweatpants-go/sweatpants/elicit"
	"github.com/sweatpants-go/sweatpants/turn"
)

// mcpConfig is the tests' application with an agent whose tool asks the
// user's name, served over MCP.
func mcpTestConfig() Config {
	host := agents.New("host", "Greets people.")
	agents.NewTool(host, "greet", "Greets the user by name", func(ctx context.Context, _ struct{}) (string, error) {
		who, err := turn.Ask(ctx, greetingForm, "What should I call you?", struct{}{})
		if err != nil || who.Action != elicit.Accept {
			return "Hello, stranger.", err
		}
		return "Hello, " + who.Content.Name + "!", nil
	})
	cfg := testConfig()
	cfg.Agents = []*agents.Agent{host}
	return cfg
}

// answering is a client that answers every question with the name Cy.
func answering() *sdk.Client {
	return sdk.NewClient(&sdk.Implementation{Name: "test-ide", Version: "1"}, &sdk.ClientOptions{
		ElicitationHandler: func(context.Context, *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
			return &sdk.ElicitResult{Action: "accept", Content: map[string]any{"name": "Cy"}}, nil
		}})
}

func greetText(t *testing.T, cs *sdk.ClientSession) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "host.greet", Arguments: map[string]any{}})
	if err != nil {
		t.Fatalf("call host.greet: %v", err)
	}
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	if res.IsError {
		t.Fatalf("host.greet failed: %s", b.String())
	}
	return b.String()
}

// TestMCPOverStdio: the mcp command serves the agents' tools on its stdin
// and stdout; a call's question is answered by the client, and the program
// ends when the client closes its input.
func TestMCPOverStdio(t *testing.T) {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() {
		p := newProgram(mcpTestConfig(), func(string) string { return "" }, inR, outW, io.Discard)
		done <- p.run(context.Background(), []string{"mcp", "--db", filepath.Join(t.TempDir(), "mcp.db")})
		outW.Close()
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cs, err := answering().Connect(ctx, &sdk.IOTransport{Reader: outR, Writer: inW}, nil)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	tools, err := cs.ListTools(ctx, nil)
	if err != nil || len(tools.Tools) != 1 || tools.Tools[0].Name != "host.greet" {
		t.Fatalf("tools = %+v, %v; want host.greet alone", tools, err)
	}
	if got := greetText(t, cs); got != `"Hello, Cy!"` {
		t.Errorf("result = %s; want the greeting with the client's answer", got)
	}
	cs.Close()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("mcp: %v", err)
		}
	case <-ctx.Done():
		t.Fatal("the mcp command did not end when its input closed")
	}
}

// TestMCPStdioRefusesAnUnknownAgent: --agent names an agent with tools.
func TestMCPStdioRefusesAnUnknownAgent(t *testing.T) {
	_, _, err := runWith(mcpTestConfig(), "mcp", "--db", filepath.Join(t.TempDir(), "x.db"), "--agent", "nobody")
	if err == nil || !strings.Contains(err.Error(), `no agent "nobody"`) || !strings.Contains(err.Error(), "host") {
		t.Errorf("err = %v; want the unknown agent named, and the agents there are", err)
	}
}

// TestServeMCPNeedsATokenBeyondLoopback: serve refuses to start with /mcp
// open to the network.
func TestServeMCPNeedsATokenBeyondLoopback(t *testing.T) {
	needDatastar(t)
	_, _, err := runWith(mcpTestConfig(), "serve", "--addr", "0.0.0.0:0", "--db", filepath.Join(t.TempDir(), "x.db"))
	if err == nil || !strings.Contains(err.Error(), "--mcp-token") {
		t.Errorf("err = %v; want a refusal naming --mcp-token", err)
	}
}

// TestServeMCPRefusesATaskOfNoTool: a task named after no tool of the
// agents (a typo, a tool renamed) stops serve at start, naming it.
func TestServeMCPRefusesATaskOfNoTool(t *testing.T) {
	needDatastar(t)
	cfg := mcpTestConfig()
	cfg.MCP.Tasks = map[string]MCPTask{"clerk.nosuch": {}}
	_, _, err := runWith(cfg, "serve", "--addr", "127.0.0.1:0", "--db", filepath.Join(t.TempDir(), "x.db"))
	if err == nil || !strings.Contains(err.Error(), `"clerk.nosuch"`) {
		t.Errorf("err = %v; want a refusal naming the task", err)
	}
}

// TestServeMCP: serve answers MCP at /mcp beside the pages, behind its
// token and the pages' cross-origin protection.
func TestServeMCP(t *testing.T) {
	addr := startServerWith(t, mcpTestConfig(), "--mcp-token", "s3cret")
	url := "http://" + addr + "/mcp"
	body := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`
	post := func(header map[string]string) int {
		req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		for k, v := range header {
			req.Header.Set(k, v)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		return res.StatusCode
	}
	if got := post(nil); got != http.StatusUnauthorized {
		t.Errorf("no token: %d; want 401", got)
	}
	if got := post(map[string]string{"Authorization": "Bearer nope"}); got != http.StatusUnauthorized {
		t.Errorf("a wrong token: %d; want 401", got)
	}
	if got := post(map[string]string{"Authorization": "Bearer s3cret", "Origin": "https://evil.example", "Sec-Fetch-Site": "cross-site"}); got != http.StatusForbidden {
		t.Errorf("cross-origin: %d; want 403", got)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cs, err := answering().Connect(ctx, &sdk.StreamableClientTransport{Endpoint: url, MaxRetries: -1,
		HTTPClient: &http.Client{Transport: bearerTransport("s3cret")}}, nil)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	defer cs.Close()
	if got := greetText(t, cs); got != `"Hello, Cy!"` {
		t.Errorf("result = %s; want the greeting with the client's answer", got)
	}
}

// bearerTransport sends a bearer token with each request.
type bearerTransport string

func (b bearerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+string(b))
	return http.DefaultTransport.RoundTrip(r)
}
