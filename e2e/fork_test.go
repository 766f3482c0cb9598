package e2e

import (
	"syscall"
	"testing"
)

// The concierge's plan is its state, shown in the chat: each reply lists
// the trips planned on this version of the conversation, so an edit of an
// earlier message shows that branch's plan and a switch back the other's.
func TestTheConciergesPlanFollowsAnEditAndASwitch(t *testing.T) {
	t.Parallel()
	a := startApp(t)
	p := openChat(t, a)
	p.planTrip("Lisbon")
	p.send("Plan a trip to Rome")
	p.fillTrip("Rome", "3", "business", true)
	p.must(p.pendingForm().GetByTestId("elicit-submit").Click())
	p.must(expect.Locator(p.lastAssistant()).ToContainText("Your trip to Rome is planned"))
	plan := p.lastAssistant().Locator("li")
	p.must(expect.Locator(plan).ToHaveText([]string{"Economy class flights only to Lisbon, 2 travellers: €360", "Business class with a hotel to Rome, 3 travellers: €3,600"}))

	rome := p.GetByTestId("user-turn").Nth(1)
	p.must(rome.GetByTestId("edit-message").Click())
	p.must(rome.GetByTestId("edit-input").Fill("Plan a trip to Oslo"))
	p.must(rome.GetByTestId("edit-send").Click())
	p.fillTrip("Oslo", "1", "premium", false)
	p.must(p.pendingForm().GetByTestId("elicit-submit").Click())
	p.must(expect.Locator(p.lastAssistant()).ToContainText("Your trip to Oslo is planned"))
	p.must(expect.Locator(plan).ToHaveText([]string{"Economy class flights only to Lisbon, 2 travellers: €360", "Premium class flights only to Oslo, 1 traveller: €420"}))

	p.must(p.GetByTestId("user-turn").Nth(1).GetByTestId("branch-prev").Click())
	p.must(expect.Locator(p.GetByTestId("user-message").Nth(1)).ToHaveText("Plan a trip to Rome"))
	p.must(expect.Locator(plan).ToHaveText([]string{"Economy class flights only to Lisbon, 2 travellers: €360", "Business class with a hotel to Rome, 3 travellers: €3,600"}))
}

// "Try a cheaper option" tries it on a branch of its own: the plan
// changes there and the user compares the fares. Refused, the concierge
// goes back — the question leaves the chat, a line says what was tried,
// and the plan is as it was; kept, the cheaper plan is the plan. Killed
// with SIGKILL while the tried option's question waits, the server asks it
// again after a restart, and the answer finishes the turn once.
func TestTryingACheaperOptionGoesBackOrKeepsIt(t *testing.T) {
	t.Parallel()
	a := startApp(t)
	p := openChat(t, a)
	p.send("Plan a trip to Rome")
	p.fillTrip("Rome", "2", "business", true)
	p.must(p.pendingForm().GetByTestId("elicit-submit").Click())
	p.must(expect.Locator(p.lastAssistant()).ToContainText("Business class with a hotel to Rome, 2 travellers: €2,400"))

	q := p.ask("Try a cheaper option", "confirm")
	p.must(expect.Locator(q).ToContainText("Premium class with a hotel to Rome would cost €1,320 instead of €2,400. Switch to it?"))
	p.must(q.GetByTestId("elicit-no").Click())
	p.must(expect.Locator(p.lastAssistant()).ToContainText("I tried premium class with a hotel to Rome (€1,320 instead of €2,400) and went back: your plan is as it was."))
	p.must(expect.Locator(p.lastAssistant().Locator("li")).ToHaveText([]string{"Business class with a hotel to Rome, 2 travellers: €2,400"}))
	p.must(expect.Locator(p.GetByTestId("fork-end")).ToHaveText([]string{"Tried a cheaper option, then went back."}))
	p.must(expect.Locator(p.Locator(`[data-testid=elicit][data-kind=confirm]`)).ToHaveCount(0))

	q = p.ask("Try a cheaper option", "confirm")
	a.stop(syscall.SIGKILL)
	a.start()
	_, err := p.Reload()
	p.must(err)
	p.waitForStream()
	q = p.active()
	p.must(expect.Locator(q).ToContainText("Premium class with a hotel to Rome would cost €1,320 instead of €2,400. Switch to it?"))
	p.must(q.GetByTestId("elicit-yes").Click())
	p.must(expect.Locator(p.lastAssistant()).ToContainText("Done: premium class with a hotel to Rome, €1,320 instead of €2,400."))
	p.must(expect.Locator(p.lastAssistant().Locator("li")).ToHaveText([]string{"Premium class with a hotel to Rome, 2 travellers: €1,320"}))
	p.must(expect.Locator(p.GetByTestId("fork-end")).ToHaveText([]string{"Tried a cheaper option, then went back.", "Tried a cheaper option and kept it."}))
	p.must(expect.Locator(p.GetByTestId("assistant-message")).ToHaveCount(3))

	// The inspector shows both tries, the first abandoned, the second
	// adopted, and the plan at HEAD the cheaper one.
	ins := &chatPage{t: t, Page: newPageIn(t, p.Context())}
	_, err = ins.Goto(p.URL() + "/tree")
	ins.must(err)
	ins.waitForStream()
	fates := ins.GetByTestId("tried-fate")
	ins.must(expect.Locator(fates).ToHaveCount(2))
	ins.must(expect.Locator(fates.First()).ToHaveAttribute("data-fate", "abandoned"))
	ins.must(expect.Locator(fates.Last()).ToHaveAttribute("data-fate", "adopted"))
	ins.must(expect.Locator(ins.GetByTestId("agent-state").GetByTestId("state-value")).ToContainText(`"cabin":"premium"`))
}
