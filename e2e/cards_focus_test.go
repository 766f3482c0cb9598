package e2e

import (
	"regexp"
	"testing"

	"github.com/playwright-community/playwright-go"
)

// focused reports whether focus is on the element loc finds, once every
// change the page made has settled (two animation frames: the page moves
// focus in the microtask after a change).
func (p *chatPage) focused(loc playwright.Locator) bool {
	p.t.Helper()
	_, err := p.Evaluate(`() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))`)
	p.must(err)
	v, err := loc.Evaluate(`el => el === document.activeElement`, nil)
	p.must(err)
	return v == true
}

// Focus follows the questions: a new question takes it (its first field,
// or its heading when there is nothing to type in), an answer taken gives
// it back to the composer.
func TestFocusFollowsTheQuestions(t *testing.T) {
	t.Parallel()
	a := startApp(t)
	p := openShowcase(t, a)
	q := p.start("pick a colour", "choice")
	p.must(expect.Locator(q.GetByTestId("choice-red")).ToBeFocused())
	p.must(q.GetByTestId("choice-green").Check())
	p.must(q.GetByTestId("elicit-submit").Click())
	p.replied("The theme is now green.")
	p.must(expect.Locator(p.GetByTestId("composer-input")).ToBeFocused())

	q = p.ask("confirm", "confirm")
	heading := q.Locator(".elicit-message")
	p.must(expect.Locator(heading).ToHaveRole("heading"))
	p.must(expect.Locator(heading).ToBeFocused())
	p.must(q.GetByTestId("elicit-no").Click())
	p.replied("Kept: your drafts are untouched.")
	p.must(expect.Locator(p.GetByTestId("composer-input")).ToBeFocused())
}

// A question that comes up while the user writes in the composer leaves
// focus, and what they wrote, where it is.
func TestAQuestionDoesNotTakeFocusFromTheWriter(t *testing.T) {
	t.Parallel()
	a := startApp(t)
	p := openShowcase(t, a)
	p.start("together", "") // two agents ask at once; one waits behind the other
	p.must(expect.Locator(p.queued()).ToHaveCount(1))
	first := p.active()
	kind, err := first.GetAttribute("data-kind")
	p.must(err)
	id, err := first.GetAttribute("data-elicit-id")
	p.must(err)
	path := p.answerPath(first)

	input := p.GetByTestId("composer-input")
	p.must(input.Fill("and a window seat"))
	answer := map[string]string{
		"form":   `{"action":"accept","content":{"bags":1,"skis":false}}`,
		"choice": `{"action":"accept","content":{"option":"pasta"}}`,
	}[kind]
	if answer == "" {
		t.Fatalf("the first question is a %q, want a form or a choice", kind)
	}
	if got := p.postJSON(path, answer); got != 204 {
		t.Fatalf("answer the first question: %d", got)
	}
	// The second question comes up; the writer keeps focus and words.
	p.must(expect.Locator(p.active()).Not().ToHaveAttribute("data-elicit-id", id))
	p.must(expect.Locator(p.queued()).ToHaveCount(0))
	if !p.focused(input) {
		t.Error("the question that came up took focus from the composer, where the user was writing")
	}
	p.must(expect.Locator(input).ToHaveValue("and a window seat"))
}

// The progress bar says what it measures and how far it has come.
func TestTheProgressBarIsNamed(t *testing.T) {
	t.Parallel()
	a := startApp(t)
	p := openChat(t, a)
	p.send("Plan a trip")
	p.fillTrip("Vienna", "2", "economy", true)
	p.must(p.pendingForm().GetByTestId("elicit-submit").Click())
	bar := p.GetByTestId("progress-bar")
	p.must(expect.Locator(bar).ToHaveAccessibleName(regexp.MustCompile(`Checking flights|Comparing fares|Looking at hotels|Drafting`)))
	p.must(expect.Locator(bar).ToHaveAttribute("aria-valuetext", regexp.MustCompile(`^\d+%$`)))
}
