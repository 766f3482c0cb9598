package e2e

import "testing"

func TestStopWithdrawsThePendingForm(t *testing.T) {
	t.Parallel()
	a := startApp(t)
	p := openChat(t, a)
	p.send("Plan a trip")
	p.must(expect.Locator(p.pendingForm()).ToBeVisible())

	p.must(p.GetByTestId("stop").Click())
	p.must(expect.Locator(p.GetByTestId("turn-stopped")).ToHaveText("Stopped."))
	p.must(expect.Locator(p.pendingForm()).ToHaveCount(0))
	p.must(expect.Locator(p.Locator(`[data-testid=elicit][data-state=interrupted]`)).ToHaveCount(1))
	p.must(expect.Locator(p.GetByTestId("stop")).ToHaveCount(0))

	// Ready for input again.
	p.send("Plan another one")
	p.must(expect.Locator(p.pendingForm()).ToBeVisible())
}

func TestStopHaltsTheAgentMidWork(t *testing.T) {
	t.Parallel()
	a := startApp(t)
	p := openChat(t, a)
	p.send("Plan a trip")
	p.fillTrip("Vienna", "2", "economy", true)
	p.must(p.pendingForm().GetByTestId("elicit-submit").Click())
	p.must(expect.Locator(p.GetByTestId("progress")).ToBeVisible())

	p.must(p.GetByTestId("stop").Click())
	p.must(expect.Locator(p.GetByTestId("turn-stopped")).ToHaveText("Stopped."))
	p.must(expect.Locator(p.GetByTestId("progress")).ToHaveCount(0))
	p.must(expect.Locator(p.GetByTestId("assistant-message")).ToHaveCount(0))
	// What was answered stays answered.
	p.must(expect.Locator(p.Locator(`[data-testid=elicit][data-state=answered]`)).ToHaveCount(1))
}
