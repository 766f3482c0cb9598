package e2e

import (
	"regexp"
	"testing"
)

// A developer picks a node of a branch HEAD is not on and sees the agents'
// state there: the concierge's trips planned on that branch, not HEAD's,
// with the tool call that changed it; the node picked is marked, and the
// page says the node is off HEAD's branch.
func TestTheInspectorShowsTheStateAtANodeOfAnotherBranch(t *testing.T) {
	t.Parallel()
	a := startApp(t)
	p := openChat(t, a)
	p.send("Plan a trip to Bergen")
	p.fillTrip("Bergen", "2", "economy", false)
	p.must(p.pendingForm().GetByTestId("elicit-submit").Click())
	p.must(expect.Locator(p.lastAssistant()).ToContainText("Your trip to Bergen is planned"))
	turn := p.userTurn()
	p.must(turn.GetByTestId("edit-message").Click())
	p.must(turn.GetByTestId("edit-input").Fill("Plan a trip to Oslo"))
	p.must(turn.GetByTestId("edit-send").Click())
	p.fillTrip("Oslo", "3", "business", true)
	p.must(p.pendingForm().GetByTestId("elicit-submit").Click())
	p.must(expect.Locator(p.lastAssistant()).ToContainText("Your trip to Oslo is planned"))

	ins := &chatPage{t: t, Page: newPageIn(t, p.Context())}
	_, err := ins.Goto(p.URL() + "/tree")
	ins.must(err)
	ins.waitForStream()
	state := ins.GetByTestId("agent-state")
	ins.must(expect.Locator(state.GetByTestId("state-value")).ToContainText(`"destination":"Oslo"`))

	// The Bergen branch's reply, off HEAD's branch: its details offer the
	// state there.
	reply := ins.Locator(`[data-testid=tree-node][data-kind=assistant][data-on-path=false]`)
	ins.must(expect.Locator(reply).ToHaveCount(1))
	ins.must(expect.Locator(reply).ToContainText("Your trip to Bergen is planned"))
	ins.must(reply.Locator("summary").Click())
	ins.must(reply.GetByTestId("state-here").Click())
	ins.must(expect.Page(ins.Page).ToHaveURL(regexp.MustCompile(`/tree\?node=\d+#agent-state$`)))
	ins.waitForStream()

	ins.must(expect.Locator(state.Locator("h2")).ToContainText("Agents' state at reply #"))
	ins.must(expect.Locator(state.Locator("h2")).ToContainText("Your trip to Bergen is planned"))
	ins.must(expect.Locator(state.GetByTestId("state-where")).ToContainText("Off HEAD's branch"))
	ins.must(expect.Locator(state.GetByTestId("state-value")).ToContainText(`"destination":"Bergen"`))
	ins.must(expect.Locator(state.GetByTestId("state-value")).Not().ToContainText("Oslo"))
	ins.must(expect.Locator(state.GetByTestId("state-changed-by")).ToContainText("by tool call #"))
	ins.must(expect.Locator(state.GetByTestId("state-changed-by")).ToContainText(regexp.MustCompile(`plan-trip\(.*Bergen`)))
	picked := ins.Locator(`[data-testid=tree-node]:has(> details > summary [data-testid=picked-mark])`)
	ins.must(expect.Locator(picked).ToHaveCount(1))
	ins.must(expect.Locator(picked).ToContainText("Your trip to Bergen is planned"))
	checkAccessibleWithin(t, ins.Page, "the state at a node picked", "#agent-state")

	// The value's change and the call that made it are in the tree.
	ins.must(state.GetByTestId("state-changed-by").Locator("a").Click())
	ins.must(expect.Page(ins.Page).ToHaveURL(regexp.MustCompile(`#t-\d+$`)))
	call := ins.Locator(`[data-testid=tree-node]:target`)
	ins.must(expect.Locator(call).ToHaveAttribute("data-kind", "tool"))
	ins.must(expect.Locator(call).ToHaveAttribute("data-on-path", "false"))
	ins.must(expect.Locator(call.Locator("summary")).ToContainText("plan-trip"))

	// Back to HEAD's state.
	ins.must(state.GetByTestId("state-unpick").Click())
	ins.waitForStream()
	ins.must(expect.Locator(state.Locator("h2")).ToHaveText("Agents' state at HEAD"))
	ins.must(expect.Locator(state.GetByTestId("state-value")).ToContainText(`"destination":"Oslo"`))
}
