package e2e

import (
	"context"
	"net/http"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/playwright-community/playwright-go"
)

// bearerTransport adds the MCP token to each request.
type bearerTransport string

func (b bearerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+string(b))
	return http.DefaultTransport.RoundTrip(r)
}

// The conversations of MCP calls are seen in a browser that joins their
// session with the MCP token: listed with the client that called, each
// in the tree inspector. A wrong token is refused in place and changes
// nothing; a conversation the browser starts after joining does not take
// them away.
func TestABrowserSeesTheConversationsOfMCPCallsWithTheToken(t *testing.T) {
	t.Parallel()
	const token = "e2e-mcp-token-1234567890"
	a := startApp(t, "SWEATPANTS_MCP_TOKEN="+token)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	c := sdk.NewClient(&sdk.Implementation{Name: "e2e-client", Version: "1"}, nil)
	cs, err := c.Connect(ctx, &sdk.StreamableClientTransport{Endpoint: a.URL + "/mcp",
		HTTPClient: &http.Client{Transport: bearerTransport(token)}, MaxRetries: -1},
		&sdk.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "weather.getWeather", Arguments: map[string]any{"city": "Oslo"}})
	if err != nil || res.IsError {
		t.Fatalf("call: %v %+v", err, res)
	}

	p := &chatPage{t: t, Page: newPage(t)}
	_, err = p.Goto(a.URL + "/join")
	p.must(err)
	p.must(p.GetByTestId("join-key").Fill("not the token"))
	p.must(p.GetByTestId("join-submit").Click())
	p.must(expect.Locator(p.GetByTestId("join-problem")).ToContainText("not the MCP token"))
	for _, scheme := range []*playwright.ColorScheme{playwright.ColorSchemeLight, playwright.ColorSchemeDark} {
		p.must(p.EmulateMedia(playwright.PageEmulateMediaOptions{ColorScheme: scheme}))
		checkAccessible(t, p.Page, "the page of joining the MCP calls' session, with its problem")
	}
	_, err = p.Goto(a.URL + "/")
	p.must(err)
	p.must(expect.Locator(p.sidebarTitles()).ToHaveCount(0))

	_, err = p.Goto(a.URL + "/join")
	p.must(err)
	p.must(p.GetByTestId("join-key").Fill(token))
	p.must(p.GetByTestId("join-submit").Click())
	p.must(p.WaitForURL("**/c/*")) // the newest conversation, as home opens it
	mcpConv := p.sidebarTitles().Filter(playwright.LocatorFilterOptions{HasText: "MCP: e2e-client"})
	p.must(expect.Locator(mcpConv).ToHaveCount(1))
	p.must(expect.Locator(p.GetByTestId("conversation-title")).ToHaveText("MCP: e2e-client"))
	_, err = p.Goto(p.URL() + "/tree")
	p.must(err)
	p.must(expect.Locator(p.GetByText("weather.getWeather").First()).ToBeVisible())

	// A conversation started here joins them; they stay.
	p.startWith(a, "assistant", "Hello")
	p.must(expect.Locator(p.sidebarTitles().Filter(playwright.LocatorFilterOptions{HasText: "MCP: e2e-client"})).ToHaveCount(1))
}
