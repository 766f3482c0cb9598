package e2e

import (
	"regexp"
	"testing"
)

// A side thread continued as the flow and back, in Chromium: Continue
// here withdraws the form that waited and shows the thread as the
// conversation, which goes on from it after a reload; Back to the flow
// brings the form back, waiting, with the thread beside it, and the trip
// is planned from it. The reflog words both moves.
func TestASideThreadContinuedAsTheFlowAndBack(t *testing.T) {
	t.Parallel()
	a := startApp(t)
	p := openChat(t, a)
	p.send("Plan a trip")
	p.must(expect.Locator(p.pendingForm()).ToBeVisible())
	p.send("By the way, what's the weather usually like in spring?")
	side := p.GetByTestId("side-quest")
	p.must(expect.Locator(side.GetByTestId("side-reply")).Not().ToBeEmpty())
	reply, err := side.GetByTestId("side-reply").TextContent()
	p.must(err)
	p.must(expect.Locator(side.GetByTestId("continue-here")).ToBeVisible())
	p.checkBothThemes("a side thread that can be continued")

	p.must(side.GetByTestId("continue-here").Click())
	p.must(expect.Locator(p.pendingForm()).ToHaveCount(0))
	p.must(expect.Locator(side).ToHaveCount(0))
	p.must(expect.Locator(p.GetByTestId("user-message").Last()).ToHaveText("By the way, what's the weather usually like in spring?"))
	p.must(expect.Locator(p.lastAssistant()).ToHaveText(reply))
	p.must(expect.Locator(p.GetByTestId("turn-stopped").Last()).ToContainText("was withdrawn: the conversation went on from the side question"))
	_, err = p.Reload()
	p.must(err)
	p.waitForStream()
	p.must(expect.Locator(p.GetByTestId("back-to-flow")).ToBeVisible())
	p.must(expect.Locator(p.pendingForm()).ToHaveCount(0))
	p.checkBothThemes("a side thread continued as the flow")

	p.must(p.GetByTestId("back-to-flow").Click())
	p.must(expect.Locator(p.pendingForm()).ToBeVisible())
	p.must(expect.Locator(p.GetByTestId("back-to-flow")).ToHaveCount(0))
	p.must(expect.Locator(side.GetByTestId("side-reply")).ToHaveText(reply))
	p.fillTrip("Tallinn", "2", "premium", false)
	p.must(p.pendingForm().GetByTestId("elicit-submit").Click())
	p.must(expect.Locator(p.lastAssistant()).ToContainText("Your trip to Tallinn is planned"))
	// Once the form is answered no question waits: the thread is no longer
	// offered as a way out of one.
	p.must(expect.Locator(side.GetByTestId("continue-here")).ToBeHidden())

	ins := &chatPage{t: t, Page: newPageIn(t, p.Context())}
	_, err = ins.Goto(p.URL() + "/tree")
	ins.must(err)
	ins.waitForStream()
	toFlow := ins.Locator(`[data-testid=reflog-entry][data-action=to-flow]`)
	ins.must(expect.Locator(toFlow.GetByTestId("reflog-detail")).ToHaveText(regexp.MustCompile(`^back to question #\d+ “`)))
	cont := ins.Locator(`[data-testid=reflog-entry][data-action=continue]`)
	ins.must(expect.Locator(cont.GetByTestId("reflog-detail")).ToHaveText(regexp.MustCompile(`^from the side question, withdrawing the question “`)))
}
