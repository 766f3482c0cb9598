package e2e

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/playwright-community/playwright-go"
)

// openShowcase opens a new browser session and starts a chat with the
// showcase agent through the sidebar's agent picker. perms are granted to
// the app's origin first; with none, the browser refuses device
// permissions (headless Chromium answers every permission prompt with no).
func openShowcase(t *testing.T, a *app, perms ...string) *chatPage {
	t.Helper()
	return openAgent(t, a, "showcase", perms...)
}

// openAgent opens a new browser session and starts a chat with the named
// agent through the sidebar's agent picker, granting perms first.
func openAgent(t *testing.T, a *app, agent string, perms ...string) *chatPage {
	t.Helper()
	p := &chatPage{t: t, Page: newPage(t)}
	step := func(what string, err error) {
		t.Helper()
		if err != nil {
			t.Fatalf("open a %s chat: %s: %v", agent, what, err)
		}
	}
	t.Cleanup(func() {
		if t.Failed() {
			html, _ := p.Locator("#chat").InnerHTML(playwright.LocatorInnerHTMLOptions{Timeout: playwright.Float(1000)})
			t.Logf("the conversation as the page shows it:\n%s", html)
		}
	})
	if len(perms) > 0 {
		step("grant "+strings.Join(perms, ", "), p.Context().GrantPermissions(perms, playwright.BrowserContextGrantPermissionsOptions{Origin: playwright.String(a.URL)}))
	}
	_, err := p.Goto(a.URL + "/")
	step("open the app", err)
	_, err = p.GetByTestId("new-chat-agent").SelectOption(playwright.SelectOptionValues{Values: &[]string{agent}})
	step("pick the agent", err)
	step("click New chat", p.GetByTestId("new-chat").Click())
	// The new page is the one whose header names the agent; the
	// conversation starts with the first message. Its composer sends on
	// Enter before the page's modules have loaded (early.js); the
	// conversation's page needs them, and send and start wait for its
	// stream.
	step("wait for the new page", expect.Locator(p.Locator(".chat-header .agent")).ToHaveText("agent: "+agent))
	return p
}

// active is the question to answer now: pending and not queued.
func (p *chatPage) active() playwright.Locator {
	return p.Locator(`[data-testid=elicit][data-state=pending][data-queued=false]`)
}

// queued are the pending questions waiting behind the active one.
func (p *chatPage) queued() playwright.Locator {
	return p.Locator(`[data-testid=elicit][data-state=pending][data-queued=true]`)
}

// lastAnswered is the most recently answered question.
func (p *chatPage) lastAnswered() playwright.Locator {
	return p.Locator(`[data-testid=elicit][data-state=answered]`).Last()
}

// ask sends text and waits for the question of kind it leads to.
func (p *chatPage) ask(text, kind string) playwright.Locator {
	p.t.Helper()
	p.send(text)
	q := p.active()
	p.must(expect.Locator(q).ToHaveAttribute("data-kind", kind))
	return q
}

// replied waits for the agent's reply to be text exactly.
func (p *chatPage) replied(text string) {
	p.t.Helper()
	p.must(expect.Locator(p.lastAssistant()).ToHaveText(text))
	p.must(expect.Locator(p.Locator("[data-testid=elicit][data-state=pending]")).ToHaveCount(0))
}

// postJSON posts body from inside the page, as the page's own scripts do
// (same origin, its session cookie), and returns the status.
func (p *chatPage) postJSON(path, body string) int {
	p.t.Helper()
	v, err := p.Evaluate(`async ([path, body]) => (await fetch(path, {method: 'POST', headers: {'Content-Type': 'application/json'}, body})).status`,
		[]string{path, body})
	p.must(err)
	n, ok := v.(int)
	if !ok {
		p.t.Fatalf("fetch status: %#v", v)
	}
	return n
}

// answerPath is where answers to question q are posted.
func (p *chatPage) answerPath(q playwright.Locator) string {
	p.t.Helper()
	id, err := q.GetAttribute("data-elicit-id")
	p.must(err)
	return fmt.Sprintf("%s/elicits/%s", p.convPath(), id)
}

// convPath is the path of the open conversation.
func (p *chatPage) convPath() string {
	return regexp.MustCompile(`/c/[0-9a-f]+$`).FindString(p.URL())
}
