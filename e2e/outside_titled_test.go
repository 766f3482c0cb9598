package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/playwright-community/playwright-go"

	"github.com/sweatpants-go/sweatpants/llm/llmtest"
)

// An outside server's question with titled options, answered in the page:
// the test's server (the SDK's, over Streamable HTTP) asks, as the
// reference server does with an elicitation request, the question of
// internal/mcpconn/testdata/titled_options.json, written in its order.
// The form shows its fields in that order; the titled single choice is a
// choice of titles, the multiple choices checkboxes; an email that is not
// one is refused in place while the question waits; fixed, the answer
// reaches the server as its schema says — the options' values, lists of
// them, the fields left empty left out — and the answer shows the titles.
func TestAnOutsideServersTitledQuestionIsAnsweredInThePage(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile(filepath.Join("..", "internal", "mcpconn", "testdata", "titled_options.json"))
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var answered []map[string]any
	srv := mcp.NewServer(&mcp.Implementation{Name: "survey", Version: "1"}, nil)
	mcp.AddTool(srv, &mcp.Tool{Name: "survey", Description: "Asks the user about themselves"},
		func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
			res, err := req.Session.Elicit(ctx, &mcp.ElicitParams{Message: "Tell me about you", RequestedSchema: json.RawMessage(raw)})
			if err != nil {
				return nil, nil, err
			}
			mu.Lock()
			answered = append(answered, res.Content)
			mu.Unlock()
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "thanks, " + fmt.Sprint(res.Content["name"])}}}, nil, nil
		})
	ts := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil))
	t.Cleanup(ts.Close)
	file := filepath.Join(t.TempDir(), "servers.json")
	if err := os.WriteFile(file, fmt.Appendf(nil, `{"mcpServers": {"survey": {"url": %q}}}`, ts.URL), 0o600); err != nil {
		t.Fatal(err)
	}
	model := llmtest.NewServer(t,
		llmtest.Reply{ToolCalls: []llmtest.ToolCall{{ID: "call_survey", Name: "survey", Arguments: `{}`}}},
		llmtest.Text("Nice to meet you, Ada."))
	a := startApp(t, "SWEATPANTS_PROVIDER=openai", "OPENAI_API_KEY=test", "OPENAI_BASE_URL="+model.URL, "SWEATPANTS_MCP_SERVERS="+file)
	p := openAgent(t, a, "assistant")

	q := p.start("Ask me about myself", "approval")
	p.must(q.GetByTestId("approval-once").Click())
	form := p.active()
	p.must(expect.Locator(form).ToHaveAttribute("data-kind", "form"))
	p.must(expect.Locator(form).ToContainText("Tell me about you"))

	// The fields in the question's order, and its options as choices.
	fields, err := form.Locator("[data-field]").EvaluateAll(`els => els.map(e => e.dataset.field)`)
	p.must(err)
	if got, want := fmt.Sprint(fields), "[name email homepage birthdate meetAt age subscribe size pet color toppings friends]"; got != want {
		t.Errorf("the form's fields are %s, want the question's order %s", got, want)
	}
	p.must(expect.Locator(form.GetByTestId("field-pet").Locator("option")).ToHaveText([]string{"Goldfish", "Cat", "Dog"}))
	p.must(expect.Locator(form.GetByTestId("field-pet")).ToHaveValue("fish-1"))
	p.must(expect.Locator(form.GetByTestId("field-color").Locator("option")).ToHaveText([]string{"Choose…", "Red", "Green", "Blue"}))
	p.must(expect.Locator(form.GetByTestId("field-friends-fish-1")).ToBeChecked())
	p.must(expect.Locator(form.Locator(`[data-field=friends] label`)).ToHaveText([]string{"Goldfish", "Cat", "Dog"}))
	p.must(expect.Locator(form.GetByTestId("field-email")).ToHaveAttribute("type", "email"))
	p.must(expect.Locator(form.GetByTestId("field-birthdate")).ToHaveAttribute("type", "date"))

	p.must(form.GetByTestId("field-name").Fill("Ada"))
	p.must(form.GetByTestId("field-email").Fill("ada at example"))
	_, err = form.GetByTestId("field-pet").SelectOption(playwright.SelectOptionValues{Labels: &[]string{"Cat"}})
	p.must(err)
	p.must(form.GetByTestId("field-friends-fish-1").Uncheck())
	p.must(form.GetByTestId("field-friends-dog-3").Check())
	p.must(form.GetByTestId("elicit-submit").Click())
	p.must(expect.Locator(form.GetByTestId("error-email")).ToHaveText("Email must be an email address, like name@example.com"))
	p.must(expect.Locator(form).ToHaveAttribute("data-state", "pending"))
	mu.Lock()
	early := len(answered)
	mu.Unlock()
	if early != 0 {
		t.Fatalf("the server was answered %d times before the answer was fixed", early)
	}

	p.must(form.GetByTestId("field-email").Fill("ada@example.com"))
	p.must(form.GetByTestId("elicit-submit").Click())
	p.replied("Nice to meet you, Ada.")
	mu.Lock()
	got, _ := json.Marshal(answered)
	mu.Unlock()
	// The server's SDK fills in what the schema gives a default for
	// (subscribe), as it does for any answer.
	if want := `[{"email":"ada@example.com","friends":["dog-3"],"name":"Ada","pet":"cat-2","size":"medium","subscribe":false,"toppings":["cheese"]}]`; string(got) != want {
		t.Errorf("the server was answered %s, want %s", got, want)
	}
	answer := p.lastAnswered().GetByTestId("elicit-answer")
	p.must(expect.Locator(answer).ToContainText("Cat"))
	p.must(expect.Locator(answer).ToContainText("Dog"))
}
