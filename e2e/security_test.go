package e2e

import (
	"regexp"
	"strings"
	"testing"

	"github.com/playwright-community/playwright-go"

	"github.com/sweatpants-go/sweatpants/llm/llmtest"
)

// forgedEvent would, were a lone "\r" a line end the server did not expect
// in its stream, end the patch it is shown in and start an event of its
// own: signals that Datastar, failing to read them as JSON, evaluates as a
// script, which sets window.p. HTML escaping leaves all of it alone.
const forgedEvent = "x\r\revent:datastar-patch-signals\rdata:signals {p: window.p = 1}\r\ry"

// shownAs is how the page shows forgedEvent: as typed, its line ends "\n".
var shownAs = strings.ReplaceAll(forgedEvent, "\r", "\n")

// TestForgedStreamEventsRunNoScript puts text that forges a stream event
// through a message, a form answer and a model reply from an
// OpenAI-compatible endpoint, then loads the conversation again: no script
// ran, and each text is shown as it was written.
func TestForgedStreamEventsRunNoScript(t *testing.T) {
	t.Parallel()
	model := llmtest.NewServer(t, llmtest.Call("plan-trip", `{"request":"a trip"}`), llmtest.Text("Your plan: ", forgedEvent))
	a := startApp(t, "SWEATPANTS_PROVIDER=openai", "OPENAI_API_KEY=test", "OPENAI_BASE_URL="+model.URL)
	p := openChat(t, a)
	// The page's Content-Security-Policy must not get in the app's way:
	// every refusal the browser makes under it is counted.
	p.must(p.AddInitScript(playwright.Script{Content: playwright.String(
		`window.cspRefusals = []; document.addEventListener('securitypolicyviolation', e => window.cspRefusals.push(e.violatedDirective + ' ' + e.blockedURI))`)}))

	// A browser's textarea turns "\r" into "\n", so the text is posted as a
	// script on another page would post it: straight to the routes.
	started, err := p.Evaluate(`async (text) => {
		const res = await fetch('/c', {method: 'POST', body: new URLSearchParams({agent: 'concierge', message: text})})
		return res.url
	}`, forgedEvent)
	p.must(err)
	_, err = p.Goto(started.(string))
	p.must(err)
	p.waitForStream()
	q := p.pendingForm()
	id, err := q.GetAttribute("data-elicit-id")
	p.must(err)
	status, err := p.Evaluate(`async ([path, text]) => (await fetch(path, {method: 'POST',
		body: new URLSearchParams({_action: 'accept', destination: text, travellers: '2', cabin: 'economy', hotel: 'false'})})).status`,
		[]string{p.convPath() + "/elicits/" + id, forgedEvent})
	p.must(err)
	if status != 204 {
		t.Fatalf("the form answer was refused: %v", status)
	}
	p.must(expect.Locator(p.lastAssistant()).ToContainText("Your plan:"))

	for _, load := range []string{"live", "reloaded"} {
		if load == "reloaded" {
			_, err := p.Reload()
			p.must(err)
			p.waitForStream()
			p.must(expect.Locator(p.lastAssistant()).ToContainText("Your plan:"))
		}
		refused, err := p.Evaluate(`() => window.cspRefusals`)
		p.must(err)
		if r, ok := refused.([]any); !ok || len(r) != 0 {
			t.Errorf("%s: the Content-Security-Policy refused %v", load, refused)
		}
		ran, err := p.Evaluate(`() => window.p === 1`)
		p.must(err)
		if ran != false {
			t.Errorf("%s: a forged event ran script in the page", load)
		}
		for what, loc := range map[string]string{
			"the message":            `[data-testid=user-message]`,
			"the answered form":      `[data-testid=elicit][data-state=answered]`,
			"the agent's reply":      `[data-testid=assistant-message]`,
			"the conversation title": `[data-testid=conversation-title]`,
		} {
			text, err := p.Locator(loc).First().TextContent()
			p.must(err)
			want := shownAs
			switch what {
			case "the conversation title":
				want = "x" // a title is the message's first line
			case "the agent's reply":
				// Markdown: the text's paragraphs are the reply's, its
				// words as written.
				text, want = strings.Join(strings.Fields(text), " "), strings.Join(strings.Fields(shownAs), " ")
			}
			if !strings.Contains(text, want) {
				t.Errorf("%s: %s shows %q, want it to contain %q", load, what, text, want)
			}
		}
	}
}

// TestStartingAConversationTwiceAtOnceKeepsTheBrowsersConversations: a
// second post of the new-chat form on the heels of the first (a double
// click) is not sent. It would start the conversation twice, or, carrying
// the session id the first post retired (a new conversation rotates it,
// taking the browser's conversations along), leave the browser with a
// session that owns none of them.
func TestStartingAConversationTwiceAtOnceKeepsTheBrowsersConversations(t *testing.T) {
	t.Parallel()
	a := startApp(t)
	p := openChat(t, a)
	p.send("first conversation")
	_, err := p.Goto(a.URL + "/new")
	p.must(err)
	p.must(p.GetByTestId("composer-input").Fill("second conversation"))
	// The second click a moment after the first, when the first post is
	// on its way.
	_, err = p.Evaluate(`() => { const f = document.getElementById('composer'); f.requestSubmit(); setTimeout(() => f.requestSubmit(), 30) }`)
	p.must(err)
	p.must(expect.Page(p.Page).ToHaveURL(regexp.MustCompile(`/c/[0-9a-f]+$`)))
	p.waitForStream()
	links := p.Locator(".sidebar nav a")
	p.must(expect.Locator(links).ToHaveCount(2))
	p.must(expect.Locator(links.Filter(playwright.LocatorFilterOptions{HasText: "first conversation"})).ToHaveCount(1))
}
