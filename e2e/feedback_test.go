package e2e

import (
	"net/http"
	"strings"
	"testing"

	"github.com/playwright-community/playwright-go"
)

// postFeedback posts a feedback form from inside the page, as its own
// scripts do, and returns the status.
func (p *chatPage) postFeedback(path, body string) int {
	p.t.Helper()
	v, err := p.Evaluate(`async ([path, body]) => (await fetch(path, {method: 'POST', headers: {'Content-Type': 'application/x-www-form-urlencoded'}, body})).status`,
		[]string{path, body})
	p.must(err)
	n, ok := v.(int)
	if !ok {
		p.t.Fatalf("fetch status: %#v", v)
	}
	return n
}

// Thumbs up, then down with a comment, on a reply: shown pressed, kept
// after a reload, and following the reply's branch when the message is
// edited and the versions switched; bad feedback is refused in place.
func TestFeedbackOnAReplyFollowsItsBranch(t *testing.T) {
	t.Parallel()
	a := startApp(t)
	p := openChat(t, a)
	p.send("A weekend away")
	p.must(expect.Locator(p.pendingForm()).ToBeVisible())
	p.must(p.pendingForm().GetByTestId("elicit-decline").Click())
	p.must(expect.Locator(p.lastAssistant()).ToContainText("No problem"))

	fb := func() playwright.Locator { return p.GetByTestId("reply-turn").Last().GetByTestId("feedback") }
	up := func() playwright.Locator { return fb().GetByTestId("feedback-up") }
	down := func() playwright.Locator { return fb().GetByTestId("feedback-down") }
	p.must(expect.Locator(up()).ToHaveAttribute("aria-pressed", "false"))
	p.must(expect.Locator(up()).ToHaveAccessibleName("Good reply"))
	p.must(expect.Locator(down()).ToHaveAccessibleName("Bad reply"))

	p.must(up().Click())
	p.must(expect.Locator(up()).ToHaveAttribute("aria-pressed", "true"))

	// Thumbs down opens the comment box; what is typed is shown as text.
	p.must(down().Click())
	p.must(expect.Locator(down()).ToHaveAttribute("aria-pressed", "true"))
	p.must(expect.Locator(up()).ToHaveAttribute("aria-pressed", "false"))
	p.must(expect.Locator(fb().GetByTestId("feedback-form")).ToBeVisible())
	p.must(fb().GetByTestId("feedback-input").Fill("<i>too vague</i>"))
	p.must(fb().GetByTestId("feedback-send").Click())
	p.must(expect.Locator(fb().GetByTestId("feedback-form")).ToBeHidden())
	p.must(expect.Locator(fb().GetByTestId("feedback-comment")).ToContainText("<i>too vague</i>"))
	p.must(expect.Locator(down()).ToHaveAttribute("aria-pressed", "true"))

	_, err := p.Reload()
	p.must(err)
	p.waitForStream()
	p.must(expect.Locator(down()).ToHaveAttribute("aria-pressed", "true"))
	p.must(expect.Locator(fb().GetByTestId("feedback-comment")).ToContainText("<i>too vague</i>"))

	// Refused: an overlong comment and a node that is no reply; said in
	// place, and the feedback stays.
	reply, err := p.GetByTestId("reply-turn").Last().GetAttribute("id")
	p.must(err)
	path := p.convPath() + "/replies/" + strings.TrimPrefix(reply, "n-") + "/feedback"
	if got := p.postFeedback(path, "rating=down&comment="+strings.Repeat("x", 2001)); got != http.StatusBadRequest {
		t.Errorf("an overlong comment: status %d, want 400", got)
	}
	p.must(expect.Locator(p.GetByTestId("notice")).ToContainText("the limit is 2000"))
	if got := p.postFeedback(p.convPath()+"/replies/999999/feedback", "rating=up"); got != http.StatusNotFound {
		t.Errorf("a missing reply: status %d, want 404", got)
	}
	p.must(expect.Locator(p.GetByTestId("notice")).ToHaveText("There is no reply 999999 in this conversation."))
	p.must(expect.Locator(down()).ToHaveAttribute("aria-pressed", "true"))

	// A new version of the message: its reply has no feedback.
	turn := p.userTurn()
	p.must(turn.GetByTestId("edit-message").Click())
	p.must(turn.GetByTestId("edit-input").Fill("A weekend in Rome"))
	p.must(turn.GetByTestId("edit-send").Click())
	p.must(expect.Locator(p.userTurn().GetByTestId("branch-index")).ToHaveText("2 / 2"))
	p.must(expect.Locator(p.pendingForm()).ToBeVisible())
	p.must(p.pendingForm().GetByTestId("elicit-decline").Click())
	p.must(expect.Locator(p.lastAssistant()).ToContainText("No problem"))
	p.must(expect.Locator(down()).ToHaveAttribute("aria-pressed", "false"))
	p.must(expect.Locator(fb().GetByTestId("feedback-comment")).ToHaveCount(0))

	// Back on the first version, its reply's feedback is there again.
	p.must(p.userTurn().GetByTestId("branch-prev").Click())
	p.must(expect.Locator(p.userTurn().GetByTestId("branch-index")).ToHaveText("1 / 2"))
	p.must(expect.Locator(down()).ToHaveAttribute("aria-pressed", "true"))
	p.must(expect.Locator(fb().GetByTestId("feedback-comment")).ToContainText("<i>too vague</i>"))
}

// A side question's reply takes feedback of its own, kept after a reload;
// the reply it was asked beside keeps none.
func TestFeedbackOnASideReply(t *testing.T) {
	t.Parallel()
	a := startApp(t)
	p := openAgent(t, a, "assistant")
	p.send("What's the weather in Paris?")
	p.must(expect.Locator(p.lastAssistant()).ToContainText("Paris"))
	reply := p.GetByTestId("reply-turn").Last()
	p.must(reply.GetByTestId("ask-aside").Click())
	p.must(reply.GetByTestId("aside-input").Fill("And in Lisbon?"))
	p.must(reply.GetByTestId("aside-send").Click())
	side := p.GetByTestId("side-quest")
	p.must(expect.Locator(side.GetByTestId("side-reply")).ToContainText("Lisbon"))

	p.must(side.GetByTestId("feedback-up").Click())
	p.must(expect.Locator(side.GetByTestId("feedback-up")).ToHaveAttribute("aria-pressed", "true"))
	_, err := p.Reload()
	p.must(err)
	p.waitForStream()
	p.must(expect.Locator(side.GetByTestId("feedback-up")).ToHaveAttribute("aria-pressed", "true"))
	p.must(expect.Locator(p.GetByTestId("reply-turn").Last().GetByTestId("feedback-up").First()).ToHaveAttribute("aria-pressed", "false"))
}
