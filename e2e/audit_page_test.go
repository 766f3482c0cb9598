package e2e

import (
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/playwright-community/playwright-go"
)

// The audit of tool calls and the settings page of permissions are a
// link away from a conversation's header, pass the accessibility check
// light and dark; the audit lists the conversation's tool calls, newest
// first, each linked to its conversation, narrowed by the filter, and the
// settings page shows the program's rules (--policy) as written, each
// with the file's name and line (not the folders it is in).
func TestTheAuditAndPermissionsPagesFromTheHeader(t *testing.T) {
	t.Parallel()
	rules := filepath.Join(t.TempDir(), "policy.rules")
	if err := os.WriteFile(rules, []byte("finalDeny */delete*\nallow showcase/*\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	a := startApp(t, "SWEATPANTS_POLICY="+rules)
	p := openShowcase(t, a)
	q := p.start("pick a colour", "choice")
	p.must(q.GetByTestId("choice-green").Check())
	p.must(q.GetByTestId("elicit-submit").Click())
	p.replied("The theme is now green.")
	q = p.ask("approve a tool call", "approval")
	p.must(q.GetByTestId("approval-once").Click())
	p.replied("Archived the drafts older than 30 days into Archive (allowed once).")
	conv := p.URL()

	dev := &chatPage{t: t, Page: newPageIn(t, p.Context())}
	both := func(what string) {
		t.Helper()
		dev.must(dev.EmulateMedia(playwright.PageEmulateMediaOptions{ColorScheme: playwright.ColorSchemeLight}))
		checkAccessible(t, dev.Page, what+", light")
		dev.must(dev.EmulateMedia(playwright.PageEmulateMediaOptions{ColorScheme: playwright.ColorSchemeDark}))
		checkAccessible(t, dev.Page, what+", dark")
	}
	_, err := dev.Goto(conv)
	dev.must(err)
	dev.must(dev.GetByTestId("tools-page-link").Click())
	dev.must(expect.Page(dev.Page).ToHaveURL(regexp.MustCompile(`/tools$`)))
	rows := dev.GetByTestId("tool-call")
	dev.must(expect.Locator(rows).ToHaveCount(2))
	dev.must(expect.Locator(rows.Nth(0).GetByTestId("tool-name")).ToHaveText("approveArchive"))
	dev.must(expect.Locator(rows.Nth(1).GetByTestId("tool-name")).ToHaveText("pickColour"))
	dev.must(expect.Locator(rows.Nth(0).GetByTestId("tool-outcome")).ToContainText("ok"))
	both("the audit of tool calls")

	dev.must(dev.GetByTestId("filter-tool").Fill("pickColour"))
	dev.must(dev.GetByTestId("filter-apply").Click())
	dev.must(expect.Page(dev.Page).ToHaveURL(regexp.MustCompile(`/tools\?.*tool=pickColour`)))
	dev.must(expect.Locator(rows).ToHaveCount(1))
	dev.must(expect.Locator(dev.GetByTestId("tools-export")).ToHaveAttribute("href", "/tools.jsonl?tool=pickColour"))
	dev.must(rows.First().GetByTestId("tool-conversation").Click())
	dev.must(expect.Page(dev.Page).ToHaveURL(conv))

	dev.must(dev.GetByTestId("permissions-link").Click())
	dev.must(expect.Page(dev.Page).ToHaveURL(regexp.MustCompile(`/settings/permissions$`)))
	dev.must(expect.Locator(dev.Locator("h1")).ToHaveText("Permissions"))
	dev.must(expect.Locator(dev.GetByTestId("program-rules").Locator("li")).ToHaveText([]string{
		"finalDeny */delete* (policy.rules:1)", "allow showcase/* (policy.rules:2)"}))
	both("the settings page of permissions")
}
