package e2e

import (
	"testing"

	"github.com/playwright-community/playwright-go"
)

// Editing an earlier message hides every later turn of the old version:
// the chat says so where it happened — a new version, the earlier one
// kept — and the switcher back to it is labelled, big enough to tap, and
// works from the keyboard.
func TestAnEditSaysANewVersionWasMadeAndTheEarlierIsKept(t *testing.T) {
	t.Parallel()
	a := startApp(t)
	p := openChat(t, a)
	p.send("A weekend away")
	p.must(expect.Locator(p.pendingForm()).ToBeVisible())
	p.must(p.pendingForm().GetByTestId("elicit-decline").Click())
	p.must(expect.Locator(p.lastAssistant()).ToContainText("No problem"))
	p.must(expect.Locator(p.GetByTestId("branch-note")).ToHaveCount(0))

	turn := p.userTurn()
	p.must(turn.GetByTestId("edit-message").Click())
	p.must(turn.GetByTestId("edit-input").Fill("A week in Oslo"))
	p.must(turn.GetByTestId("edit-send").Click())
	p.must(expect.Locator(p.GetByTestId("user-message")).ToHaveText("A week in Oslo"))
	p.must(expect.Locator(p.GetByTestId("assistant-message")).ToHaveCount(0))

	// Said in words, where the later turns went.
	p.must(expect.Locator(p.userTurn().GetByTestId("branch-words")).ToHaveText("A new version — your earlier version is kept, with what followed it."))
	switcher := p.userTurn().GetByRole("navigation", playwright.LocatorGetByRoleOptions{Name: "Version 2 of 2"})
	p.must(expect.Locator(switcher).ToBeVisible())
	prev := switcher.GetByRole("button", playwright.LocatorGetByRoleOptions{Name: "Show the previous version"})
	next := switcher.GetByRole("button", playwright.LocatorGetByRoleOptions{Name: "Show the next version"})
	p.must(expect.Locator(next).ToBeDisabled())
	for _, b := range []playwright.Locator{prev, next} {
		box, err := b.BoundingBox()
		p.must(err)
		if box == nil || box.Width < 24 || box.Height < 24 {
			t.Errorf("a switcher button is %+v, want a tap target of 24 × 24 px at least", box)
		}
	}
	checkAccessible(t, p.Page, "the chat with a new version, light")

	// From the keyboard: back to the first version, and forward again,
	// the focus staying on the switcher.
	p.must(prev.Focus())
	p.must(p.Keyboard().Press("Enter"))
	p.must(expect.Locator(p.GetByTestId("user-message")).ToHaveText("A weekend away"))
	p.must(expect.Locator(p.lastAssistant()).ToContainText("No problem"))
	p.must(expect.Locator(p.userTurn().GetByTestId("branch-words")).ToHaveText("Your first version — your newer version is kept, with what followed it."))
	first := p.userTurn().GetByRole("navigation", playwright.LocatorGetByRoleOptions{Name: "Version 1 of 2"})
	p.must(expect.Locator(first.GetByRole("button", playwright.LocatorGetByRoleOptions{Name: "Show the next version"})).ToBeFocused())
	p.must(p.Keyboard().Press("Enter"))
	p.must(expect.Locator(p.GetByTestId("user-message")).ToHaveText("A week in Oslo"))
	p.must(expect.Locator(switcher.GetByRole("button", playwright.LocatorGetByRoleOptions{Name: "Show the previous version"})).ToBeFocused())

	// Dark, the words and the switcher read as well.
	p.must(p.EmulateMedia(playwright.PageEmulateMediaOptions{ColorScheme: playwright.ColorSchemeDark}))
	checkAccessible(t, p.Page, "the chat with a new version, dark")
}

// A retried reply and a changed answer say what happened too.
func TestARetryAndAChangedAnswerSayWhatHappened(t *testing.T) {
	t.Parallel()
	a := startApp(t)
	p := openChat(t, a)
	p.planTrip("Lisbon")

	card := p.Locator(`[data-testid=elicit][data-state=answered]`)
	p.must(card.GetByTestId("change-answer").Click())
	form := card.GetByTestId("change-form")
	p.must(form.GetByTestId("field-destination").Fill("Porto"))
	p.must(form.GetByTestId("elicit-submit").Click())
	p.must(expect.Locator(p.lastAssistant()).ToContainText("Your trip to Porto is planned"))
	p.must(expect.Locator(card.GetByTestId("branch-words")).ToHaveText("You changed this answer — your earlier answer is kept, with what followed it."))
	p.must(expect.Locator(card.GetByRole("navigation", playwright.LocatorGetByRoleOptions{Name: "Answer 2 of 2"})).ToBeVisible())
	p.must(card.GetByRole("button", playwright.LocatorGetByRoleOptions{Name: "Show the previous answer"}).Click())
	p.must(expect.Locator(p.lastAssistant()).ToContainText("Your trip to Lisbon is planned"))
	p.must(expect.Locator(card.GetByTestId("branch-words")).ToHaveText("Your first answer — your newer answer is kept, with what followed it."))
	p.must(p.GetByTestId("reply-turn").Last().GetByTestId("retry").Click())
	p.must(expect.Locator(p.userTurn().GetByTestId("branch-words")).ToHaveText("A new version — your earlier version is kept, with what followed it."))
	p.must(expect.Locator(p.userTurn().GetByRole("navigation", playwright.LocatorGetByRoleOptions{Name: "Version 2 of 2"})).ToBeVisible())
	checkAccessible(t, p.Page, "the chat with a changed answer and a retry")

	// On a phone the words wrap beside the switcher; nothing is cut off.
	p.must(p.SetViewportSize(390, 844))
	note := p.userTurn().GetByTestId("branch-note")
	p.must(note.ScrollIntoViewIfNeeded())
	box, err := note.BoundingBox()
	p.must(err)
	if box == nil || box.X < 0 || box.X+box.Width > 390 {
		t.Errorf("on a 390 px screen the branch note is at %+v", box)
	}
	wide, err := p.Evaluate(`() => document.documentElement.scrollWidth > 390`)
	p.must(err)
	if wide == true {
		t.Errorf("on a 390 px screen the page is wider than the screen")
	}
}
