package e2e

import (
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/playwright-community/playwright-go"

	"github.com/sweatpants-go/sweatpants/llm/llmtest"
)

// The debug page lists a conversation's model calls, one line each with
// its tokens, that opens on its latency and what was sent; it grows live
// as the chat in another tab makes the next call, keeping open what the
// reader opened; and it links both ways with the tree inspector.
func TestTheDebugPageShowsEachCallLive(t *testing.T) {
	t.Parallel()
	plan := llmtest.Call("plan-trip", `{"request":"Plan a trip to Nice"}`)
	plan.Usage = &llmtest.Usage{PromptTokens: 812, CompletionTokens: 41, TotalTokens: 853}
	plan.Delay = 150 * time.Millisecond
	days := llmtest.Text("Day 1: ", "the sea.")
	days.Usage = &llmtest.Usage{PromptTokens: 900, CompletionTokens: 12, TotalTokens: 912}
	model := llmtest.NewServer(t, plan, days)
	a := startApp(t, "SWEATPANTS_PROVIDER=openai", "OPENAI_API_KEY=test", "OPENAI_BASE_URL="+model.URL)
	p := openAgent(t, a, "concierge")
	p.send("Plan a trip to Nice")
	p.must(expect.Locator(p.pendingForm()).ToBeVisible())

	// The chat links to its debug page, where the inspector is linked.
	href, err := p.GetByTestId("debug-page-link").GetAttribute("href")
	p.must(err)
	if want := p.convPath() + "/debug"; href != want {
		t.Fatalf("the chat's debug link is %q, want %q", href, want)
	}
	dbg := &chatPage{t: t, Page: newPageIn(t, p.Context())}
	_, err = dbg.Goto(a.URL + href)
	dbg.must(err)
	dbg.waitForStream()
	calls := dbg.GetByTestId("debug-call")
	dbg.must(expect.Locator(calls).ToHaveCount(1))
	first := calls.First()
	dbg.must(expect.Locator(first.GetByTestId("call-summary")).ToHaveText(regexp.MustCompile(`^gpt-4o-mini · 2 messages, 2 tools → calls plan-trip · 812 in / 41 out · \d+ ms$`)))
	dbg.must(expect.Locator(first.GetByTestId("call-latency")).Not().ToBeVisible()) // collapsed
	dbg.must(first.Locator("summary").First().Click())
	latency, err := first.GetByTestId("call-latency").TextContent()
	dbg.must(err)
	if ms, err := strconv.Atoi(strings.TrimSuffix(latency, " ms")); err != nil || ms < 150 {
		t.Errorf("latency shown %q, want at least the model's 150 ms", latency)
	}
	dbg.must(expect.Locator(first.GetByTestId("call-tokens")).ToHaveText("812 in / 41 out"))
	dbg.must(expect.Locator(first.GetByTestId("call-provider")).ToHaveText("openai"))
	dbg.must(first.GetByText("Messages sent (2)").Click())
	dbg.must(expect.Locator(first.Locator(".debug-message.role-system")).ToContainText("You are a travel concierge."))
	dbg.must(expect.Locator(dbg.GetByTestId("turn-totals")).ToHaveText(regexp.MustCompile(`^1 call · 812 in / 41 out · `)))

	// The answer in the chat tab makes the next call: the debug page shows
	// it without a reload, and what the reader opened stays open.
	p.fillTrip("Nice", "2", "economy", false)
	p.must(p.pendingForm().GetByTestId("elicit-submit").Click())
	p.must(expect.Locator(p.lastAssistant()).ToContainText("Day 1: the sea."))
	dbg.must(expect.Locator(calls).ToHaveCount(2))
	second := calls.Nth(1)
	dbg.must(expect.Locator(second.GetByTestId("call-summary")).ToContainText("→ “Day 1: the sea.” · 900 in / 12 out"))
	dbg.must(expect.Locator(dbg.GetByTestId("turn-totals")).ToHaveText(regexp.MustCompile(`^2 calls · 1712 in / 53 out · `)))
	dbg.must(expect.Locator(first.GetByTestId("call-tokens")).ToBeVisible())

	// From the call to its node in the inspector, and back.
	dbg.must(second.Locator("summary").First().Click())
	dbg.must(second.GetByTestId("tree-node-link").Click())
	dbg.must(expect.Page(dbg.Page).ToHaveURL(regexp.MustCompile(`/tree#t-\d+$`)))
	node := dbg.Locator(`[data-testid=tree-node]:target`)
	dbg.must(expect.Locator(node).ToHaveAttribute("data-kind", "sample"))
	dbg.must(expect.Locator(node.GetByTestId("sample-line")).ToContainText("900 in / 12 out"))
	dbg.must(node.Locator("summary").First().Click())
	dbg.must(node.GetByTestId("debug-link").Click())
	dbg.must(expect.Page(dbg.Page).ToHaveURL(regexp.MustCompile(`/debug#call-\d+$`)))
	back := dbg.Locator(`[data-testid=debug-call]:target`)
	dbg.must(expect.Locator(back.GetByTestId("call-summary")).ToContainText("900 in / 12 out"))
	dbg.must(expect.Locator(back.GetByTestId("call-tokens")).ToBeVisible()) // opened for the reader
}

// The chat's pages name the model alone; where it is served from, a host
// and a port, is for the developers' calls page.
func TestTheModelsEndpointShowsOnTheCallsPageOnly(t *testing.T) {
	t.Parallel()
	model := llmtest.NewServer(t, llmtest.Text("Hello."))
	a := startApp(t, "SWEATPANTS_PROVIDER=openai", "OPENAI_API_KEY=test", "OPENAI_BASE_URL="+model.URL)
	endpoint := strings.TrimPrefix(model.URL, "http://")
	endpoint = endpoint[:strings.IndexAny(endpoint+"/", "/")]
	p := openAgent(t, a, "assistant")
	noEndpoint := func(what string) {
		t.Helper()
		html, err := p.Content()
		p.must(err)
		if strings.Contains(html, endpoint) {
			t.Errorf("%s names the model's endpoint %s", what, endpoint)
		}
	}
	p.must(expect.Locator(p.GetByTestId("model-badge")).ToHaveText("gpt-4o-mini"))
	noEndpoint("the new chat page")
	p.send("hi")
	p.must(expect.Locator(p.lastAssistant()).ToHaveText("Hello."))
	p.must(expect.Locator(p.GetByTestId("model-badge")).ToHaveText("gpt-4o-mini"))
	noEndpoint("the conversation's page")

	for _, path := range []string{p.convPath() + "/debug", "/debug"} {
		_, err := p.Goto(a.URL + path)
		p.must(err)
		p.must(expect.Locator(p.GetByTestId("debug-model")).ToHaveText("Model now: gpt-4o-mini @ " + endpoint))
	}
}

// A call lists the tools it offered by name; each tool's schema waits
// behind its name, so that a list of calls is not pages of schemas.
func TestTheCallsPageFoldsEachToolsSchema(t *testing.T) {
	t.Parallel()
	model := llmtest.NewServer(t, llmtest.Call("plan-trip", `{"request":"Plan a trip to Nice"}`))
	a := startApp(t, "SWEATPANTS_PROVIDER=openai", "OPENAI_API_KEY=test", "OPENAI_BASE_URL="+model.URL)
	p := openAgent(t, a, "concierge")
	p.send("Plan a trip to Nice")
	p.must(expect.Locator(p.pendingForm()).ToBeVisible())
	_, err := p.Goto(a.URL + p.convPath() + "/debug")
	p.must(err)
	p.waitForStream()
	call := p.GetByTestId("debug-call").First()
	p.must(call.Locator("summary").First().Click())
	offered := call.Locator("summary").Filter(playwright.LocatorFilterOptions{HasText: "Tools offered"})
	p.must(expect.Locator(offered).ToHaveText("Tools offered (2): plan-trip, try-cheaper"))
	p.must(offered.Click())
	tools := call.GetByTestId("call-tools")
	p.must(expect.Locator(tools.GetByText("plan-trip")).ToBeVisible())
	schema := tools.Locator("pre").First() // plan-trip's, offered first
	p.must(expect.Locator(schema).Not().ToBeVisible())
	p.must(tools.GetByText("plan-trip").Click())
	p.must(expect.Locator(schema).ToBeVisible())
	p.must(expect.Locator(schema).ToContainText(`"request"`))
	p.checkBothThemes("the calls page, a call's tools, one open")
}
