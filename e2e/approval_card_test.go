package e2e

import (
	"testing"

	"github.com/playwright-community/playwright-go"
)

// The approval card, by keyboard as a screen reader user works it: it
// comes up with focus on its question and says which agent's tool it is,
// what it does and with which arguments; "Edit arguments" opens an editor
// holding them; arguments that are not JSON, or do not fit the tool, are
// refused in place with what was typed kept; fixed, the edited call is
// the one that runs. Closed again, the editor sends nothing: the call runs
// as asked. Deny takes a reason, which the agent is told.
func TestTheApprovalCardByKeyboard(t *testing.T) {
	t.Parallel()
	a := startApp(t)
	p := openShowcase(t, a)
	q := p.start("approve a tool call", "approval")
	p.must(expect.Locator(q.Locator(".elicit-message")).ToBeFocused())
	p.must(expect.Locator(q.GetByTestId("approval-tool")).ToHaveText("archiveDrafts"))
	p.must(expect.Locator(q.GetByTestId("approval-effects")).ToHaveText("changes data"))
	p.must(expect.Locator(q.Locator("[data-testid=approval-args] dd[data-arg=olderThanDays]")).ToHaveText("30"))
	p.must(expect.Locator(q.GetByTestId("approval-reason")).ToContainText("You asked to see an approval"))

	// Edit arguments opens on Enter, with the cursor in the editor.
	editor := q.GetByTestId("approval-args-editor")
	p.must(expect.Locator(editor).ToBeHidden())
	p.must(q.GetByTestId("approval-edit-toggle").Focus())
	p.must(p.Keyboard().Press("Enter"))
	p.must(expect.Locator(editor).ToBeFocused())
	p.must(expect.Locator(editor).ToHaveAccessibleName("Arguments, as JSON"))

	// Not JSON: refused beside the editor, what was typed kept, focus on it.
	typed := `{"olderThanDays": ninety, "folder": "Old"}`
	p.must(editor.Fill(typed))
	p.must(q.GetByTestId("approval-conversation").Click())
	p.must(expect.Locator(q.GetByTestId("error-args")).ToContainText("Arguments must be JSON"))
	p.must(expect.Locator(editor).ToHaveValue(typed))
	p.must(expect.Locator(editor).ToHaveAttribute("aria-invalid", "true"))
	p.must(expect.Locator(editor).ToBeFocused())

	// Not the tool's input: refused too, saying why.
	p.must(editor.Fill(`{"olderThanDays": 90}`))
	p.must(q.GetByTestId("approval-conversation").Click())
	p.must(expect.Locator(q.GetByTestId("error-args")).ToContainText("do not fit the tool's input"))
	p.must(expect.Locator(q).ToHaveAttribute("data-state", "pending"))

	// Fixed: the edited call runs.
	p.must(editor.Fill(`{"olderThanDays": 90, "folder": "Old"}`))
	p.must(q.GetByTestId("approval-conversation").Click())
	p.replied("Archived the drafts older than 90 days into Old (allowed for this conversation).")
	answered := p.lastAnswered()
	p.must(expect.Locator(answered.GetByTestId("elicit-answer")).ToHaveText("Allowed for this conversation, with the arguments you edited"))
	p.must(expect.Locator(answered.Locator("[data-testid=approval-edited-args] dd[data-arg=folder]")).ToHaveText("Old"))

	// Edited, then closed: the call runs as asked.
	q = p.ask("approve a tool call", "approval")
	p.must(q.GetByTestId("approval-edit-toggle").Click())
	p.must(q.GetByTestId("approval-args-editor").Fill(`{"olderThanDays": 7, "folder": "Old"}`))
	p.must(q.GetByTestId("approval-edit-toggle").Click())
	p.must(q.GetByTestId("approval-once").Click())
	p.replied("Archived the drafts older than 30 days into Archive (allowed once).")

	// Denied, with a reason typed and sent by Enter.
	q = p.ask("approve a tool call", "approval")
	p.must(q.GetByTestId("approval-reason-input").Fill("not before Friday"))
	p.must(expect.Locator(q.GetByTestId("approval-reason-input")).ToHaveAccessibleName("Why not? (optional; the model is told)"))
	p.must(q.GetByTestId("approval-reason-input").Press("Enter"))
	p.replied("Not archived: you said “not before Friday”.")
	p.must(expect.Locator(p.lastAnswered().GetByTestId("elicit-answer")).ToHaveText("Denied: “not before Friday”"))
}

// Stop withdraws a waiting approval like any question: the call it asked
// about stays in view, marked withdrawn, with nothing left to press.
func TestStopWithdrawsAnApproval(t *testing.T) {
	t.Parallel()
	a := startApp(t)
	p := openShowcase(t, a)
	p.start("approve a tool call", "approval")
	p.must(p.GetByTestId("stop").Click())
	q := p.Locator(`[data-testid=elicit][data-state=interrupted]`)
	p.must(expect.Locator(q.GetByTestId("elicit-withdrawn")).ToBeVisible())
	p.must(expect.Locator(q.GetByTestId("approval-tool")).ToHaveText("archiveDrafts"))
	p.must(expect.Locator(q.Locator("button, textarea, input")).ToHaveCount(0, playwright.LocatorAssertionsToHaveCountOptions{}))
}
