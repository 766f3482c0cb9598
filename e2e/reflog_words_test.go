package e2e

import (
	"regexp"
	"testing"

	"github.com/playwright-community/playwright-go"
)

// The reflog reads like a debugger's: each move says what it did, with the
// value; a recovery says once where it went back to, however many
// recoveries it goes back through; the "to" column names its node; a retry
// is logged as a retry; and exactly one row is marked as HEAD's.
func TestTheReflogSaysEachMoveOnceAndMarksOneRow(t *testing.T) {
	t.Parallel()
	a := startApp(t)
	p := openChat(t, a)
	p.planTrip("Lisbon")
	p.changeDestination("Porto")
	card := p.Locator(`[data-testid=elicit][data-state=answered]`)

	ins := &chatPage{t: t, Page: newPageIn(t, p.Context())}
	_, err := ins.Goto(p.URL() + "/tree")
	ins.must(err)
	ins.waitForStream()
	// The legend names HEAD's node with what it says; a node opened
	// explains its call id.
	ins.must(expect.Locator(ins.GetByTestId("tree-legend")).ToContainText(regexp.MustCompile(`HEAD is reply #\d+ “Your trip to Porto is planned`)))
	answer := ins.Locator(`[data-testid=tree-node][data-kind=response]`).Last()
	ins.must(answer.Locator("summary").Click())
	ins.must(expect.Locator(answer.GetByTestId("node-ref-gloss")).ToHaveText("1-3.1 — call 3.1 of the turn that node #1 started (a dot numbers the calls made inside a call: a tool's, a group's)"))

	// A tool's line says what it was called with and what it gave back.
	tool := ins.Locator(`[data-testid=tree-node][data-kind=tool] .node-gist`).Last()
	ins.must(expect.Locator(tool).ToHaveText(regexp.MustCompile(`^plan-trip\(\{"request":"Plan a trip"\}\) → \{"planned":true,.*…$`)))

	entries := ins.GetByTestId("reflog-entry")
	here := ins.Locator(`[data-testid=reflog-entry].current`)
	ins.must(expect.Locator(entries).ToHaveCount(2))
	ins.must(expect.Locator(entries.First()).ToHaveAttribute("data-action", "rewind"))
	ins.must(expect.Locator(entries.First().GetByTestId("reflog-detail")).ToHaveText(
		"changed the answer to “Let's plan your trip. A few details first:” to accept: cabin economy, destination Porto, hotel false, travellers 2"))
	ins.must(expect.Locator(entries.First().GetByTestId("reflog-to")).ToHaveText(regexp.MustCompile(`^#\d+ answer$`)))
	// Both rows' states are HEAD's (the first message's branch goes on to
	// HEAD), and one row is marked: the newest.
	ins.must(expect.Locator(here).ToHaveCount(1))
	ins.must(expect.Locator(here).ToHaveAttribute("data-action", "rewind"))
	ins.must(expect.Locator(entries.Nth(1)).ToHaveAttribute("data-action", "message"))

	// Back to Lisbon from the chat: a switch, with the answer's values.
	p.must(card.GetByRole("button", playwright.LocatorGetByRoleOptions{Name: "Show the previous answer"}).Click())
	p.must(expect.Locator(p.lastAssistant()).ToContainText("Your trip to Lisbon is planned"))
	ins.must(expect.Locator(entries.First()).ToHaveAttribute("data-action", "switch"))
	ins.must(expect.Locator(entries.First().GetByTestId("reflog-detail")).ToHaveText(regexp.MustCompile(`^to answer #\d+ accept: cabin economy, destination Lisbon, hotel false, travellers 2$`)))
	ins.must(expect.Locator(here).ToHaveCount(1))
	ins.must(expect.Locator(here).ToHaveAttribute("data-action", "switch"))

	// Recover the rewind (Porto), switch away, and recover that recovery:
	// each recovery says where it went, once.
	ins.must(ins.Locator(`[data-testid=reflog-entry][data-action=rewind]`).GetByTestId("reflog-recover").Click())
	p.must(expect.Locator(p.lastAssistant()).ToContainText("Your trip to Porto is planned"))
	recovered := ins.Locator(`[data-testid=reflog-entry][data-action=recover]`)
	ins.must(expect.Locator(recovered).ToHaveCount(1))
	ins.must(expect.Locator(recovered.GetByTestId("reflog-detail")).ToHaveText(regexp.MustCompile(`^back to reply #\d+ “Your trip to Porto is planned.*”$`)))
	ins.must(expect.Locator(here).ToHaveAttribute("data-action", "recover"))
	p.must(card.GetByRole("button", playwright.LocatorGetByRoleOptions{Name: "Show the previous answer"}).Click())
	p.must(expect.Locator(p.lastAssistant()).ToContainText("Your trip to Lisbon is planned"))
	ins.must(expect.Locator(here).ToHaveAttribute("data-action", "switch"))
	ins.must(recovered.GetByTestId("reflog-recover").Click())
	p.must(expect.Locator(p.lastAssistant()).ToContainText("Your trip to Porto is planned"))
	ins.must(expect.Locator(recovered).ToHaveCount(2))
	ins.must(expect.Locator(recovered.First().GetByTestId("reflog-detail")).ToHaveText(regexp.MustCompile(`^back to reply #\d+ “Your trip to Porto is planned.*”$`)))
	ins.must(expect.Locator(ins.GetByText("the state after recover")).ToHaveCount(0))
	ins.must(expect.Locator(here).ToHaveCount(1))
	ins.must(expect.Locator(here).ToHaveAttribute("data-action", "recover"))

	// A retry is logged as a retry, and the fresh page marks one row too.
	p.must(p.GetByTestId("reply-turn").Last().GetByTestId("retry").Click())
	ins.must(expect.Locator(entries.First()).ToHaveAttribute("data-action", "retry"))
	ins.must(expect.Locator(entries.First().GetByTestId("reflog-detail")).ToHaveText("Plan a trip"))
	_, err = ins.Reload()
	ins.must(err)
	ins.waitForStream()
	ins.must(expect.Locator(here).ToHaveCount(1))
	ins.must(expect.Locator(here).ToHaveAttribute("data-action", "retry"))
}
