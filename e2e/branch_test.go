package e2e

import (
	"net/http"
	"testing"

	"github.com/playwright-community/playwright-go"
)

func (p *chatPage) userTurn() playwright.Locator { return p.GetByTestId("user-turn").First() }

func TestEditAnEarlierMessageBranchesAndKeepsBothBranches(t *testing.T) {
	t.Parallel()
	a := startApp(t)
	p := openChat(t, a)
	p.send("Plan a trip to Rome")
	p.must(expect.Locator(p.pendingForm()).ToBeVisible())

	// Edit the message while its form waits: a new branch starts from the edit.
	turn := p.userTurn()
	p.must(turn.GetByTestId("edit-message").Click())
	p.must(expect.Locator(turn.GetByTestId("edit-input")).ToHaveValue("Plan a trip to Rome"))
	p.must(turn.GetByTestId("edit-input").Fill("Plan a trip to Oslo"))
	p.must(turn.GetByTestId("edit-send").Click())

	p.must(expect.Locator(p.GetByTestId("user-message")).ToHaveText("Plan a trip to Oslo"))
	p.must(expect.Locator(p.userTurn().GetByTestId("branch-index")).ToHaveText("2 / 2"))
	p.must(expect.Locator(p.GetByTestId("edit-form")).ToBeHidden())
	p.must(expect.Locator(p.pendingForm()).ToHaveCount(1))
	p.fillTrip("Oslo", "2", "economy", false)
	p.must(p.pendingForm().GetByTestId("elicit-submit").Click())
	p.must(expect.Locator(p.lastAssistant()).ToContainText("Your trip to Oslo is planned"))

	// The first branch is still there, its form still waiting.
	p.must(p.userTurn().GetByTestId("branch-prev").Click())
	p.must(expect.Locator(p.GetByTestId("user-message")).ToHaveText("Plan a trip to Rome"))
	p.must(expect.Locator(p.userTurn().GetByTestId("branch-index")).ToHaveText("1 / 2"))
	p.must(expect.Locator(p.GetByTestId("assistant-message")).ToHaveCount(0))
	p.must(expect.Locator(p.pendingForm()).ToBeVisible())
	p.fillTrip("Rome", "4", "business", true)
	p.must(p.pendingForm().GetByTestId("elicit-submit").Click())
	p.must(expect.Locator(p.lastAssistant()).ToContainText("Your trip to Rome is planned: 4 travellers in business class"))

	// And back again: each branch shows its own state, after a reload too.
	p.must(p.userTurn().GetByTestId("branch-next").Click())
	p.must(expect.Locator(p.lastAssistant()).ToContainText("Your trip to Oslo is planned"))
	_, err := p.Reload()
	p.must(err)
	p.waitForStream()
	p.must(expect.Locator(p.GetByTestId("user-message")).ToHaveText("Plan a trip to Oslo"))
	p.must(expect.Locator(p.GetByTestId("assistant-message")).ToHaveCount(1))
}

func TestChangeAnEarlierAnswerContinuesOnANewBranch(t *testing.T) {
	t.Parallel()
	a := startApp(t)
	p := openChat(t, a)
	p.planTrip("Lisbon")

	card := p.Locator(`[data-testid=elicit][data-state=answered]`)
	p.must(card.GetByTestId("change-answer").Click())
	form := card.GetByTestId("change-form")
	p.must(expect.Locator(form.GetByTestId("field-destination")).ToHaveValue("Lisbon"))
	p.must(expect.Locator(form.GetByTestId("field-travellers")).ToHaveValue("2"))

	// A bad value is refused in place, and nothing changes.
	p.must(form.GetByTestId("field-travellers").Fill("0"))
	p.must(form.GetByTestId("elicit-submit").Click())
	p.must(expect.Locator(form.GetByTestId("error-travellers")).ToHaveText("Travellers must be at least 1"))
	p.must(expect.Locator(p.lastAssistant()).ToContainText("Your trip to Lisbon is planned"))

	p.must(form.GetByTestId("field-destination").Fill("Porto"))
	p.must(form.GetByTestId("field-travellers").Fill("3"))
	p.must(form.GetByTestId("elicit-submit").Click())
	p.must(expect.Locator(p.lastAssistant()).ToContainText("Your trip to Porto is planned: 3 travellers"))
	p.must(expect.Locator(p.GetByTestId("assistant-message")).ToHaveCount(1))
	p.must(expect.Locator(card.GetByTestId("elicit-answer")).ToContainText("Porto"))
	p.must(expect.Locator(card.GetByTestId("branch-index")).ToHaveText("2 / 2"))
	p.must(expect.Locator(card.GetByTestId("change-form")).ToBeHidden())

	p.must(card.GetByTestId("branch-prev").Click())
	p.must(expect.Locator(p.lastAssistant()).ToContainText("Your trip to Lisbon is planned"))
	p.must(expect.Locator(card.GetByTestId("branch-index")).ToHaveText("1 / 2"))
}

func TestRetryAReplySendsItsMessageAgainOnANewBranch(t *testing.T) {
	t.Parallel()
	a := startApp(t)
	p := openChat(t, a)
	p.send("A weekend away")
	p.must(expect.Locator(p.pendingForm()).ToBeVisible())
	p.must(p.pendingForm().GetByTestId("elicit-decline").Click())
	p.must(expect.Locator(p.lastAssistant()).ToContainText("No problem"))

	// Retry: the same message again, on a new branch, where the agent
	// starts over.
	p.must(p.GetByTestId("reply-turn").Last().GetByTestId("retry").Click())
	p.must(expect.Locator(p.userTurn().GetByTestId("branch-index")).ToHaveText("2 / 2"))
	p.must(expect.Locator(p.GetByTestId("user-message")).ToHaveText("A weekend away"))
	p.must(expect.Locator(p.pendingForm()).ToBeVisible())
	p.must(expect.Locator(p.GetByTestId("assistant-message")).ToHaveCount(0))

	// The first version is kept as it was.
	p.must(p.userTurn().GetByTestId("branch-prev").Click())
	p.must(expect.Locator(p.userTurn().GetByTestId("branch-index")).ToHaveText("1 / 2"))
	p.must(expect.Locator(p.lastAssistant()).ToContainText("No problem"))
	p.must(expect.Locator(p.pendingForm()).ToHaveCount(0))

	// A reply that is not there: 404, said in place, and nothing moves.
	if got := p.postJSON(p.convPath()+"/replies/999999/retry", "{}"); got != http.StatusNotFound {
		t.Errorf("retrying a missing reply: status %d, want 404", got)
	}
	p.must(expect.Locator(p.GetByTestId("notice")).ToHaveText("There is no reply 999999 in this conversation."))
	p.must(expect.Locator(p.userTurn().GetByTestId("branch-index")).ToHaveText("1 / 2"))
	p.must(expect.Locator(p.lastAssistant()).ToContainText("No problem"))
}
