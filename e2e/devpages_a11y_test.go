package e2e

import (
	"testing"

	"github.com/playwright-community/playwright-go"
)

// The developers' pages pass the accessibility check, light and dark: the
// tree inspector with branches, a node opened and the reflog, an inspected
// state, and the debug pages of a conversation and of the server.
func TestTheDevelopersPagesAreAccessibleLightAndDark(t *testing.T) {
	t.Parallel()
	a := startApp(t)
	p := openChat(t, a)
	p.planTrip("Lisbon")
	p.changeDestination("Porto")
	p.send("And a second one")
	p.must(expect.Locator(p.pendingForm()).ToBeVisible())

	dev := &chatPage{t: t, Page: newPageIn(t, p.Context())}
	both := func(what string) {
		t.Helper()
		dev.must(dev.EmulateMedia(playwright.PageEmulateMediaOptions{ColorScheme: playwright.ColorSchemeLight}))
		checkAccessible(t, dev.Page, what+", light")
		dev.must(dev.EmulateMedia(playwright.PageEmulateMediaOptions{ColorScheme: playwright.ColorSchemeDark}))
		checkAccessible(t, dev.Page, what+", dark")
	}

	_, err := dev.Goto(p.URL() + "/tree")
	dev.must(err)
	dev.waitForStream()
	dev.must(expect.Locator(dev.Locator(`[data-testid=tree-node][data-kind=response]`)).ToHaveCount(2))
	node := dev.Locator(`[data-testid=tree-node][data-kind=response]`).First()
	dev.must(node.Locator("summary").Click())
	dev.must(expect.Locator(node.GetByTestId("node-payload")).ToBeVisible())
	both("the inspector, a node open")

	dev.must(dev.GetByTestId("reflog-entry").Last().GetByTestId("reflog-inspect").Click())
	dev.must(expect.Locator(dev.GetByTestId("inspecting")).ToBeVisible())
	dev.waitForStream()
	both("the inspector on an earlier state")

	_, err = dev.Goto(p.URL() + "/debug")
	dev.must(err)
	dev.waitForStream()
	calls := dev.GetByTestId("debug-call")
	dev.must(expect.Locator(calls.First()).ToBeVisible())
	dev.must(calls.First().Locator("summary").First().Click())
	both("a conversation's debug page, a call open")

	_, err = dev.Goto(a.URL + "/debug")
	dev.must(err)
	dev.waitForStream()
	dev.must(expect.Locator(dev.GetByTestId("debug-call").First()).ToBeVisible())
	both("the server's debug page")
}
