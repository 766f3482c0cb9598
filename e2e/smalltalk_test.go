package e2e

import "testing"

// With the offline model, the concierge answers small talk as small talk:
// "Are we there yet?" gets a friendly reply and no trip form; a trip asked
// for next still gets its form.
func TestTheConciergeAnswersSmallTalk(t *testing.T) {
	t.Parallel()
	a := startApp(t)
	p := openChat(t, a)
	p.send("Are we there yet?")
	p.must(expect.Locator(p.lastAssistant()).ToHaveText("Not quite yet — but we're getting there! What can I do for you?"))
	p.must(expect.Locator(p.GetByTestId("elicit")).ToHaveCount(0))

	p.send("Plan a trip to Lisbon for two")
	p.must(expect.Locator(p.pendingForm()).ToBeVisible())
	p.must(expect.Locator(p.GetByTestId("elicit")).ToHaveCount(1))
}
