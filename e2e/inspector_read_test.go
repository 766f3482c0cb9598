package e2e

import (
	"regexp"
	"testing"
)

// The inspector reads like a debugger: a question waiting is said to wait
// for the user, an answer shows its values, a call id says what it numbers,
// the reflog's "to" goes to its node, and gc says how long it keeps things.
func TestTheInspectorSaysWhatHappened(t *testing.T) {
	t.Parallel()
	a := startApp(t)
	p := openChat(t, a)
	p.send("Plan a trip")
	p.must(expect.Locator(p.pendingForm()).ToBeVisible())
	ins := &chatPage{t: t, Page: newPageIn(t, p.Context())}
	_, err := ins.Goto(p.URL() + "/tree")
	ins.must(err)
	ins.waitForStream()
	ins.must(expect.Locator(ins.Locator(".tree-pane .tree-legend")).ToContainText("a turn waits for the user's answer"))
	ins.must(expect.Locator(ins.Locator(".reflog-pane .tree-legend")).ToContainText("once older than 30 days"))
	ref := ins.Locator(`[data-testid=tree-node][data-kind=elicit] .node-ref`).First()
	ins.must(expect.Locator(ref).ToHaveAttribute("title", "call 3.1 of the turn that node #1 started (a dot numbers the calls made inside a call: a tool's, a group's)"))

	p.fillTrip("Oslo", "2", "economy", false)
	p.must(p.pendingForm().GetByTestId("elicit-submit").Click())
	p.must(expect.Locator(p.lastAssistant()).ToContainText("Your trip to Oslo is planned"))
	answer := ins.Locator(`[data-testid=tree-node][data-kind=response] summary`).First()
	ins.must(expect.Locator(answer).ToContainText("accept: cabin economy, destination Oslo, hotel false, travellers 2"))
	ins.must(expect.Locator(ins.Locator(".tree-pane .tree-legend")).Not().ToContainText("a turn"))
	ins.must(ins.GetByTestId("reflog-to").First().Click())
	ins.must(expect.Page(ins.Page).ToHaveURL(regexp.MustCompile(`#t-\d+$`)))
}
