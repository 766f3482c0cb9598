package e2e

import (
	"testing"
)

// An answer sent while the connection is down shows that it is on its way
// (the button says so and takes no second press), and lands once, when the
// connection is back.
func TestAnAnswerSentOfflineShowsItIsOnItsWay(t *testing.T) {
	t.Parallel()
	a := startApp(t)
	p := openShowcase(t, a)
	q := p.start("pick a colour", "choice")
	p.must(q.GetByTestId("choice-green").Check())

	p.must(p.Context().SetOffline(true))
	submit := q.GetByTestId("elicit-submit")
	p.must(submit.Click())
	p.must(expect.Locator(submit).ToHaveText("Sending…"))
	p.must(expect.Locator(submit).ToBeDisabled())
	p.must(expect.Locator(q.GetByTestId("elicit-form")).ToHaveAttribute("aria-busy", "true"))

	p.must(p.Context().SetOffline(false))
	p.replied("The theme is now green.")
	p.must(expect.Locator(p.lastAnswered().GetByTestId("elicit-answer")).ToHaveText("green"))
	p.must(expect.Locator(p.GetByTestId("assistant-message")).ToHaveCount(1))
	p.must(expect.Locator(p.GetByTestId("notice")).ToHaveText(""))
}

// So does a message sent while the connection is down.
func TestAMessageSentOfflineShowsItIsOnItsWay(t *testing.T) {
	t.Parallel()
	a := startApp(t)
	p := openShowcase(t, a)
	p.start("pick a colour", "choice")
	p.must(p.active().GetByTestId("elicit-decline").Click())
	p.replied("You declined — the theme stays as it is.")

	p.must(p.Context().SetOffline(true))
	input, send := p.GetByTestId("composer-input"), p.GetByTestId("send")
	p.must(input.Fill("confirm"))
	p.must(send.Click())
	p.must(expect.Locator(send).ToHaveText("Sending…"))
	p.must(expect.Locator(send).ToBeDisabled())

	p.must(p.Context().SetOffline(false))
	p.must(expect.Locator(p.active()).ToHaveAttribute("data-kind", "confirm"))
	p.must(expect.Locator(send).ToHaveText("Send"))
	p.must(expect.Locator(send).ToBeEnabled())
	p.must(expect.Locator(p.GetByTestId("user-message")).ToHaveCount(2))
}
