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
	p.send("Plan a weekend in Lisbon")
	p.fillTrip("Lisbon", "3", "business", true)
	p.must(p.pendingForm().GetByTestId("elicit-submit").Click())
	p.must(expect.Locator(p.lastAssistant()).ToContainText("Lisbon"))
	turn := p.userTurn()
	p.must(turn.GetByTestId("edit-message").Click())
	shot("6-editing")
	p.must(turn.GetByTestId("edit-input").Fill("Plan a weekend in Oslo"))
	p.must(turn.GetByTestId("edit-send").Click())
	p.must(expect.Locator(p.pendingForm()).ToBeVisible())
	shot("7-branched")
	p.fillTrip("Oslo", "1", "economy", false)
	p.must(p.pendingForm().GetByTestId("elicit-submit").Click())
	p.must(expect.Locator(p.lastAssistant()).ToContainText("Oslo"))
	card := p.Locator(`[data-testid=elicit][data-state=answered]`)
	p.must(card.GetByTestId("change-answer").Click())
	shot("8-changing")
}
