package e2e

import (
	"regexp"
	"testing"
	"time"

	"github.com/playwright-community/playwright-go"
)

// A theme chosen with the toggle is the page's from its first paint, on
// the new chat page and on a conversation's: the page never shows the
// system's theme first, then flips.
func TestAThemeChosenIsThereAtFirstPaint(t *testing.T) {
	t.Parallel()
	a := startApp(t)
	page := newPageWith(t, playwright.BrowserNewContextOptions{ColorScheme: playwright.ColorSchemeLight})
	p := &chatPage{t: t, Page: page}
	// The theme as the body starts to be parsed, which is before it can be
	// drawn, and before any module script of the page runs.
	p.must(p.AddInitScript(playwright.Script{Content: playwright.String(`
		new MutationObserver((_, watch) => {
			if (!document.body) return
			window.themeAtFirstPaint = document.documentElement.dataset.theme || 'system'
			watch.disconnect()
		}).observe(document, {childList: true, subtree: true})`)}))
	atFirstPaint := func() string {
		t.Helper()
		v, err := p.Evaluate(`() => window.themeAtFirstPaint`)
		p.must(err)
		s, _ := v.(string)
		return s
	}
	_, err := p.Goto(a.URL + "/new?agent=assistant")
	p.must(err)
	if got := atFirstPaint(); got != "system" {
		t.Fatalf("with no theme chosen, the page first showed %q", got)
	}
	toggle := p.GetByTestId("theme-toggle")
	p.must(toggle.Click())
	p.must(expect.Locator(toggle).ToHaveText("Theme: dark"))

	_, err = p.Reload()
	p.must(err)
	if got := atFirstPaint(); got != "dark" {
		t.Errorf("after dark was chosen, the new chat page first showed %q", got)
	}
	p.must(expect.Locator(p.GetByTestId("theme-toggle")).ToHaveText("Theme: dark"))
	p.send("What is the weather in Lisbon?")
	if got := atFirstPaint(); got != "dark" {
		t.Errorf("after dark was chosen, the conversation's page first showed %q", got)
	}

	p.must(p.GetByTestId("theme-toggle").Click()) // light
	p.must(expect.Locator(p.GetByTestId("theme-toggle")).ToHaveText("Theme: light"))
	p.must(p.GetByTestId("theme-toggle").Click()) // as the system says again
	p.must(expect.Locator(p.GetByTestId("theme-toggle")).ToHaveText("Theme: system"))
	_, err = p.Reload()
	p.must(err)
	if got := atFirstPaint(); got != "system" {
		t.Errorf("after the system's theme was chosen again, the page first showed %q", got)
	}
}

// Enter sends the first message as soon as the page takes typing, before
// the page's scripts have loaded (here, they never do: a slow connection
// at its slowest).
func TestEnterSendsTheFirstMessageBeforeThePageScriptsLoad(t *testing.T) {
	t.Parallel()
	a := startApp(t)
	p := &chatPage{t: t, Page: newPage(t)}
	p.must(p.Route(regexp.MustCompile(`/static/(glue|datastar)\.js$`), func(r playwright.Route) { _ = r.Abort() }))
	_, err := p.Goto(a.URL + "/new?agent=assistant")
	p.must(err)
	input := p.GetByTestId("composer-input")
	p.must(input.Fill("What is the weather in Lisbon?"))
	p.must(input.Press("Enter"))
	p.must(expect.Page(p.Page).ToHaveURL(regexp.MustCompile(`/c/[0-9a-f]+$`)))
	p.must(expect.Locator(p.GetByTestId("user-message")).ToHaveText([]string{"What is the weather in Lisbon?"}))
}

// A message sent while the connection is down lands within a few seconds
// of the connection coming back, however long it was down, and once.
func TestAMessageSentOfflineLandsSoonAfterTheConnectionIsBack(t *testing.T) {
	t.Parallel()
	a := startApp(t)
	p := openShowcase(t, a)
	p.start("pick a colour", "choice")
	p.must(p.active().GetByTestId("elicit-decline").Click())
	p.replied("You declined — the theme stays as it is.")

	// Each failed try of the composer's request.
	_, err := p.Evaluate(`() => {
		window.composerTries = 0
		document.addEventListener('datastar-fetch', (evt) => {
			if (evt.detail?.type === 'retrying' && evt.detail.el?.closest('#composer')) window.composerTries++
		})
	}`)
	p.must(err)
	p.must(p.Context().SetOffline(true))
	input := p.GetByTestId("composer-input")
	p.must(input.Fill("confirm"))
	p.must(input.Press("Enter"))
	p.must(expect.Locator(p.GetByTestId("send")).ToHaveText("Sending…"))
	// Down long enough for Datastar's own back-off to wait 16 s for the
	// next try.
	_, err = p.WaitForFunction(`() => window.composerTries >= 5`, nil, playwright.PageWaitForFunctionOptions{Timeout: playwright.Float(ms(patience(40 * time.Second)))})
	p.must(err)

	p.must(p.Context().SetOffline(false))
	back := time.Now()
	p.must(expect.Locator(p.GetByTestId("user-message")).ToHaveCount(2, playwright.LocatorAssertionsToHaveCountOptions{Timeout: playwright.Float(ms(patience(8 * time.Second)))}))
	t.Logf("landed %v after the connection came back", time.Since(back).Round(time.Millisecond))
	p.must(expect.Locator(p.active()).ToHaveAttribute("data-kind", "confirm"))
	p.must(expect.Locator(p.GetByTestId("send")).ToHaveText("Send"))
	p.must(expect.Locator(p.GetByTestId("user-message")).ToHaveText([]string{"pick a colour", "confirm"}))
}

// On a conversation's page too, a message typed and sent with Enter before
// the page's scripts have loaded is sent, once, when they have: it is
// neither turned into a new line nor wiped.
func TestEnterSendsBeforeTheConversationsScriptsLoad(t *testing.T) {
	t.Parallel()
	a := startApp(t)
	p := openAgent(t, a, "assistant")
	p.send("What's the weather in Paris?")
	p.must(expect.Locator(p.lastAssistant()).ToContainText("Paris"))

	// Datastar arrives only when the test lets it.
	arrive := make(chan struct{})
	p.must(p.Route(regexp.MustCompile(`/static/datastar\.js$`), func(r playwright.Route) {
		select {
		case <-arrive:
		case <-time.After(patience(20 * time.Second)):
		}
		_ = r.Continue()
	}))
	_, err := p.Reload(playwright.PageReloadOptions{WaitUntil: playwright.WaitUntilStateCommit})
	p.must(err)
	input := p.GetByTestId("composer-input")
	p.must(input.Fill("And in Lisbon?"))
	p.must(input.Press("Enter"))
	p.must(input.Press("Enter")) // impatient: still one message
	close(arrive)
	p.waitForStream()
	p.must(expect.Locator(p.GetByTestId("user-message")).ToHaveText([]string{"What's the weather in Paris?", "And in Lisbon?"}))
	p.must(expect.Locator(input).ToHaveValue(""))
}
