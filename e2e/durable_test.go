package e2e

import (
	"syscall"
	"testing"

	"github.com/sweatpants-go/sweatpants/internal/store/pgtest"
)

// A form waiting for an answer survives the server being killed: the page
// reconnects by itself, the same form is there, and answering it finishes
// the turn exactly once.
func TestPendingFormSurvivesSIGKILL(t *testing.T) {
	t.Parallel()
	pendingFormSurvivesSIGKILL(t, startApp(t))
}

// The same on PostgreSQL (--db postgres://…): what the user sees does not
// depend on the engine.
func TestPendingFormSurvivesSIGKILLOnPostgreSQL(t *testing.T) {
	t.Parallel()
	pendingFormSurvivesSIGKILL(t, startAppOn(t, pgtest.Schema(t)))
}

func pendingFormSurvivesSIGKILL(t *testing.T, a *app) {
	p := openChat(t, a)
	p.send("Plan a trip to Bergen")
	p.must(expect.Locator(p.pendingForm()).ToBeVisible())
	eid, err := p.pendingForm().GetAttribute("data-elicit-id")
	p.must(err)
	p.must(p.pendingForm().GetByTestId("field-destination").Fill("Bergen"))

	a.stop(syscall.SIGKILL)
	_, err = p.WaitForFunction(`() => document.documentElement.dataset.stream === 'reconnecting'`, nil)
	p.must(err)
	a.start()
	p.waitForStream()

	form := p.Locator(`[data-testid=elicit][data-state=pending][data-elicit-id="` + eid + `"]`)
	p.must(expect.Locator(form).ToBeVisible())
	p.must(expect.Locator(p.Locator(`[data-testid=elicit]`)).ToHaveCount(1))
	p.fillTrip("Bergen", "2", "premium", true)
	p.must(form.GetByTestId("elicit-submit").Click())
	p.must(expect.Locator(p.lastAssistant()).ToContainText("Your trip to Bergen is planned: 2 travellers in premium class, flights and a hotel."))
	p.must(expect.Locator(p.GetByTestId("assistant-message")).ToHaveCount(1))
	p.must(expect.Locator(p.Locator(`[data-testid=elicit]`)).ToHaveCount(1))
}
