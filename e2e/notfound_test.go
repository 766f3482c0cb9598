package e2e

import (
	"testing"
)

// An address that leads nowhere — a conversation that is not there or not
// this browser's, a page that does not exist — is a page that says so, with
// a way back.
func TestANotFoundPageWithAWayBack(t *testing.T) {
	t.Parallel()
	a := startApp(t)
	owner := openChat(t, a)
	owner.send("Plan a trip")
	theirs := owner.URL()
	p := &chatPage{t: t, Page: newPage(t)}
	for _, path := range []string{"/c/0123456789abcdef", "/nowhere"} {
		res, err := p.Goto(a.URL + path)
		p.must(err)
		if res.Status() != 404 {
			t.Errorf("%s: status %d, want 404", path, res.Status())
		}
		p.must(expect.Locator(p.GetByTestId("not-found").Locator("h1")).ToHaveText("Not found"))
	}
	res, err := p.Goto(theirs) // another browser's conversation
	p.must(err)
	if res.Status() != 404 {
		t.Errorf("another session's conversation: status %d, want 404", res.Status())
	}
	p.must(expect.Locator(p.GetByTestId("not-found")).ToContainText("Not found"))
	p.must(p.GetByTestId("back-home").Click())
	p.must(expect.Locator(p.GetByTestId("composer-input")).ToBeVisible())
}

// On a touch screen the composer does not mention Shift+Enter.
func TestTheComposerOnATouchScreen(t *testing.T) {
	t.Parallel()
	a := startApp(t)
	p := phonePage(t)
	_, err := p.Goto(a.URL + "/")
	p.must(err)
	p.must(expect.Locator(p.GetByTestId("composer-input")).ToHaveAttribute("placeholder", "Message the agent"))
}
