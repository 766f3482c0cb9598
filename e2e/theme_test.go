package e2e

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/playwright-community/playwright-go"
)

// The page follows the system's dark mode, and the toggle overrides it for
// this browser, across reloads.
func TestDarkModeFollowsTheSystemAndTheToggle(t *testing.T) {
	t.Parallel()
	a := startApp(t)
	page := newPageWith(t, playwright.BrowserNewContextOptions{ColorScheme: playwright.ColorSchemeDark})
	p := &chatPage{t: t, Page: page}
	_, err := p.Goto(a.URL + "/new?agent=concierge")
	p.must(err)
	rootBackground := func() string {
		v, err := p.Evaluate(`() => getComputedStyle(document.documentElement).getPropertyValue('--bg').trim()`)
		p.must(err)
		return v.(string)
	}
	toggle := p.GetByTestId("theme-toggle")
	p.must(expect.Locator(toggle).ToHaveText("Theme: system"))
	if got := rootBackground(); got != "#17181b" {
		t.Errorf("with the system dark, the page's background is %q", got)
	}
	p.send("Plan a trip")
	p.must(expect.Locator(p.pendingForm()).ToBeVisible())
	_, err = p.Screenshot(playwright.PageScreenshotOptions{Path: playwright.String(darkShot(t))})
	p.must(err)

	p.must(toggle.Click()) // dark, chosen
	p.must(expect.Locator(toggle).ToHaveText("Theme: dark"))
	p.must(toggle.Click()) // light, though the system is dark
	p.must(expect.Locator(toggle).ToHaveText("Theme: light"))
	if got := rootBackground(); got != "#f6f5f2" {
		t.Errorf("with light chosen, the page's background is %q", got)
	}
	_, err = p.Reload()
	p.must(err)
	p.waitForStream()
	p.must(expect.Locator(p.GetByTestId("theme-toggle")).ToHaveText("Theme: light"))
	if got := rootBackground(); got != "#f6f5f2" {
		t.Errorf("after a reload, the page's background is %q, want the light chosen", got)
	}
}

// darkShot is where the dark screenshot goes: the tour's directory under
// make screenshots, else a temporary one.
func darkShot(t *testing.T) string {
	dir := os.Getenv("SWEATPANTS_SCREENSHOTS")
	if dir == "" {
		dir = t.TempDir()
	}
	return filepath.Join(dir, "dark.png")
}
