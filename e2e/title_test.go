package e2e

import "testing"

// The title is the first message as shown: editing it retitles the page,
// the sidebar and the window; switching back restores it.
func TestTheTitleFollowsAnEditOfTheFirstMessage(t *testing.T) {
	t.Parallel()
	a := startApp(t)
	p := openChat(t, a)
	p.send("Plan a trip to Oslo")
	p.must(expect.Locator(p.GetByTestId("conversation-title")).ToHaveText("Plan a trip to Oslo"))
	msg := p.GetByTestId("user-turn").First()
	p.must(msg.GetByTestId("edit-message").Click())
	p.must(msg.GetByTestId("edit-input").Fill("Plan a trip to Riga"))
	p.must(msg.GetByTestId("edit-send").Click())
	p.must(expect.Locator(p.GetByTestId("conversation-title")).ToHaveText("Plan a trip to Riga"))
	p.must(expect.Page(p.Page).ToHaveTitle("Plan a trip to Riga · Sweatpants"))
	p.must(expect.Locator(p.Locator(".conv-link.current")).ToHaveText("Plan a trip to Riga"))
	p.must(p.GetByTestId("user-turn").First().GetByTestId("branch-prev").Click())
	p.must(expect.Locator(p.GetByTestId("conversation-title")).ToHaveText("Plan a trip to Oslo"))
}
