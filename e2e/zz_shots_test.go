package e2e

import (
	"os"
	"testing"

	"github.com/playwright-community/playwright-go"
)

func TestZZShots(t *testing.T) {
	dir := os.Getenv("SHOTS")
	if dir == "" {
		t.Skip()
	}
	a := startApp(t)
	p := openChat(t, a)
	shot := func(name string) {
		_, err := p.Screenshot(playwright.PageScreenshotOptions{Path: playwright.String(dir + "/" + name + ".png"), FullPage: playwright.Bool(true)})
		p.must(err)
	}
	shot("1-empty")
	p.send("Plan a weekend in Lisbon")
	p.must(expect.Locator(p.pendingForm()).ToBeVisible())
	shot("2-form")
	p.fillTrip("Lisbon", "12", "business", true)
	p.must(p.pendingForm().GetByTestId("elicit-submit").Click())
	p.must(expect.Locator(p.GetByTestId("error-travellers")).ToBeVisible())
	shot("3-error")
	p.fillTrip("Lisbon", "3", "business", true)
	p.must(p.pendingForm().GetByTestId("elicit-submit").Click())
	p.must(expect.Locator(p.GetByTestId("progress")).ToBeVisible())
	shot("4-progress")
	p.must(expect.Locator(p.lastAssistant()).ToContainText("Lisbon"))
	shot("5-done")
}
