package e2e

import "testing"

func TestSideQuestionWhileAFormWaits(t *testing.T) {
	t.Parallel()
	a := startApp(t)
	p := openChat(t, a)
	p.send("Plan a trip")
	p.must(expect.Locator(p.pendingForm()).ToBeVisible())
	p.must(p.pendingForm().GetByTestId("field-destination").Fill("Tallinn"))

	p.send("By the way, what's the weather usually like in spring?")
	side := p.GetByTestId("side-quest")
	p.must(expect.Locator(side.GetByTestId("side-question")).ToHaveText("By the way, what's the weather usually like in spring?"))
	p.must(expect.Locator(side.GetByTestId("side-reply")).Not().ToBeEmpty())
	// The flow is where it was: the same form, still waiting, what was typed kept.
	p.must(expect.Locator(p.pendingForm()).ToHaveCount(1))
	p.must(expect.Locator(p.pendingForm().GetByTestId("field-destination")).ToHaveValue("Tallinn"))
	p.must(expect.Locator(p.GetByTestId("waiting")).ToBeVisible())

	p.fillTrip("Tallinn", "2", "premium", false)
	p.must(p.pendingForm().GetByTestId("elicit-submit").Click())
	p.must(expect.Locator(p.lastAssistant()).ToContainText("Your trip to Tallinn is planned"))
	// The side exchange stays in the transcript, after a reload too.
	_, err := p.Reload()
	p.must(err)
	p.waitForStream()
	p.must(expect.Locator(p.GetByTestId("side-question")).ToHaveCount(1))
}

func TestAnAnswerInWordsIsTakenAsTheFormsAnswer(t *testing.T) {
	t.Parallel()
	a := startApp(t)
	p := openChat(t, a)
	p.send("Plan a trip")
	p.must(expect.Locator(p.pendingForm()).ToBeVisible())
	p.send("Make it 3 travellers, business class")
	p.must(expect.Locator(p.GetByTestId("elicit-answer")).ToHaveText("You answered in words: “Make it 3 travellers, business class”"))
	p.must(expect.Locator(p.pendingForm().Locator(".elicit-message")).ToContainText("You said “Make it 3 travellers, business class”"))
	p.must(expect.Locator(p.GetByTestId("side-quest")).ToHaveCount(0))
}
