package e2e

import (
	"regexp"
	"testing"
)

// The concierge keeps the trips it planned as its state, which follows the
// branch: the inspector shows the state at HEAD and the node that set it,
// live, as the chat in another tab plans a trip, edits the message into
// another branch, and switches back; an inspected reflog entry shows the
// state of its time.
func TestTheInspectorShowsTheAgentsStateOfTheBranch(t *testing.T) {
	t.Parallel()
	a := startApp(t)
	p := openChat(t, a)
	p.send("Plan a trip to Bergen")
	p.fillTrip("Bergen", "2", "economy", false)
	p.must(p.pendingForm().GetByTestId("elicit-submit").Click())
	p.must(expect.Locator(p.lastAssistant()).ToContainText("Your trip to Bergen is planned"))

	ins := &chatPage{t: t, Page: newPageIn(t, p.Context())}
	_, err := ins.Goto(p.URL() + "/tree")
	ins.must(err)
	ins.waitForStream()
	state := ins.GetByTestId("agent-state")
	ins.must(expect.Locator(state.GetByTestId("state-name")).ToHaveText("travel · trips"))
	ins.must(expect.Locator(state.GetByTestId("state-value")).ToContainText(`"destination":"Bergen"`))
	ins.must(expect.Locator(state.GetByTestId("state-set-at")).ToHaveAttribute("href", regexp.MustCompile(`^#t-\d+$`)))

	// Another branch: the trip planned there alone.
	turn := p.userTurn()
	p.must(turn.GetByTestId("edit-message").Click())
	p.must(turn.GetByTestId("edit-input").Fill("Plan a trip to Oslo"))
	p.must(turn.GetByTestId("edit-send").Click())
	p.fillTrip("Oslo", "3", "business", true)
	p.must(p.pendingForm().GetByTestId("elicit-submit").Click())
	p.must(expect.Locator(p.lastAssistant()).ToContainText("Your trip to Oslo is planned"))
	ins.must(expect.Locator(state.GetByTestId("state-value")).ToContainText(`"destination":"Oslo"`))
	ins.must(expect.Locator(state.GetByTestId("state-value")).Not().ToContainText("Bergen"))

	// Back to the first version: its state again, without a reload.
	p.must(p.userTurn().GetByTestId("branch-prev").Click())
	p.must(expect.Locator(p.GetByTestId("user-message")).ToHaveText("Plan a trip to Bergen"))
	ins.must(expect.Locator(state.GetByTestId("state-value")).ToContainText(`"destination":"Bergen"`))
	ins.must(expect.Locator(state.GetByTestId("state-value")).Not().ToContainText("Oslo"))

	// The edit's state, inspected from the reflog: the Oslo branch's.
	edit := ins.Locator(`[data-testid=reflog-entry][data-action=edit]`)
	ins.must(edit.GetByTestId("reflog-inspect").Click())
	ins.must(expect.Locator(ins.GetByTestId("inspecting")).ToContainText("edit"))
	ins.must(expect.Locator(ins.GetByTestId("agent-state").GetByTestId("state-value")).ToContainText(`"destination":"Oslo"`))
}
