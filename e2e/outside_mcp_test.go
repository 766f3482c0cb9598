package e2e

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/playwright-community/playwright-go"

	"github.com/sweatpants-go/sweatpants/llm/llmtest"
)

// An outside MCP server's tool in the browser: the test runs a server
// (the SDK's, over Streamable HTTP, with a token) whose tool paint asks
// which color; the binary is given it in a file (--mcp-servers). The
// model calls paint: the user allows it on the approval card (an outside
// tool asks by default), answers the server's question on a form card,
// and the answer reaches the server, whose result the model replies with.
// The settings page lists the server, connected, with its tool, and a
// server whose command is not there, failed, saying so; it passes the
// accessibility check light and dark.
func TestAnOutsideServerAsksInThePage(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var painted []string
	srv := mcp.NewServer(&mcp.Implementation{Name: "paint", Version: "1"}, nil)
	type paintIn struct {
		Wall string `json:"wall"`
	}
	mcp.AddTool(srv, &mcp.Tool{Name: "paint", Description: "Paints a wall in the color the user picks"},
		func(ctx context.Context, req *mcp.CallToolRequest, in paintIn) (*mcp.CallToolResult, any, error) {
			res, ok := req.Params.InputResponses["color"].(*mcp.ElicitResult)
			if !ok {
				return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{"color": &mcp.ElicitParams{
					Message: "Which color for the " + in.Wall + "?", RequestedSchema: map[string]any{
						"type":       "object",
						"properties": map[string]any{"color": map[string]any{"type": "string", "title": "Color", "enum": []string{"red", "blue"}}},
						"required":   []string{"color"},
					}}}}, nil, nil
			}
			color := fmt.Sprint(res.Content["color"])
			mu.Lock()
			painted = append(painted, in.Wall+" "+color)
			mu.Unlock()
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "painted the " + in.Wall + " " + color}}}, nil, nil
		})
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil)
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer paint-token" {
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(ts.Close)
	file := filepath.Join(t.TempDir(), "servers.json")
	if err := os.WriteFile(file, fmt.Appendf(nil, `{"mcpServers": {"paint": {"url": %q, "token": "paint-token"}, "broken": {"command": "/nonexistent/mcp-server"}}}`, ts.URL), 0o600); err != nil {
		t.Fatal(err)
	}

	model := llmtest.NewServer(t,
		llmtest.Reply{Chunks: []string{"I'll paint it."}, ToolCalls: []llmtest.ToolCall{{ID: "call_paint", Name: "paint", Arguments: `{"wall":"kitchen"}`}}},
		llmtest.Text("The kitchen is blue now."))
	a := startApp(t, "SWEATPANTS_PROVIDER=openai", "OPENAI_API_KEY=test", "OPENAI_BASE_URL="+model.URL, "SWEATPANTS_MCP_SERVERS="+file)
	p := openAgent(t, a, "assistant")

	q := p.start("Paint the kitchen", "approval")
	p.must(expect.Locator(q.GetByTestId("approval-tool")).ToHaveText("paint"))
	p.must(expect.Locator(q.GetByTestId("approval-agent")).ToHaveText("of paint"))
	p.must(q.GetByTestId("approval-once").Click())

	form := p.active()
	p.must(expect.Locator(form).ToHaveAttribute("data-kind", "form"))
	p.must(expect.Locator(form).ToContainText("Which color for the kitchen?"))
	_, err := form.GetByTestId("field-color").SelectOption(playwright.SelectOptionValues{Values: &[]string{"blue"}})
	p.must(err)
	p.must(form.GetByTestId("elicit-submit").Click())
	p.replied("The kitchen is blue now.")
	mu.Lock()
	got := fmt.Sprint(painted)
	mu.Unlock()
	if got != "[kitchen blue]" {
		t.Errorf("the server painted %s, want [kitchen blue]", got)
	}

	// The model was given the server's result.
	calls := model.Requests()
	if last := calls[len(calls)-1]; !containsToolResult(last, "painted the kitchen blue") {
		t.Errorf("the model's last request holds no result of paint: %+v", last)
	}

	// The settings page: the server, connected, and its tool.
	p.must(expect.Locator(p.GetByTestId("servers-link")).ToHaveAttribute("href", "/settings/servers"))
	_, err = p.Goto(a.URL + "/settings/servers")
	p.must(err)
	p.must(expect.Locator(p.GetByTestId("server")).ToHaveCount(2))
	server := p.Locator(`[data-testid=server][data-server=paint]`)
	p.must(expect.Locator(server.GetByTestId("server-status")).ToHaveAttribute("data-status", "connected"))
	p.must(expect.Locator(server.GetByTestId("server-where")).ToHaveText(ts.URL))
	p.must(expect.Locator(server.GetByTestId("server-tool")).ToContainText("paint"))
	broken := p.Locator(`[data-testid=server][data-server=broken]`)
	p.must(expect.Locator(broken.GetByTestId("server-status")).ToHaveAttribute("data-status", "failed"))
	p.must(expect.Locator(broken.GetByTestId("server-error")).ToContainText(`the command "/nonexistent/mcp-server" was not found`))
	for _, scheme := range []*playwright.ColorScheme{playwright.ColorSchemeLight, playwright.ColorSchemeDark} {
		p.must(p.EmulateMedia(playwright.PageEmulateMediaOptions{ColorScheme: scheme}))
		checkAccessible(t, p.Page, "the settings page of MCP servers, "+fmt.Sprint(*scheme))
	}
}

// containsToolResult reports whether req hands the model a tool result
// holding text.
func containsToolResult(req llmtest.Request, text string) bool {
	for _, m := range req.Messages {
		if m.Role == "tool" && strings.Contains(fmt.Sprint(m.Content), text) {
			return true
		}
	}
	return false
}
