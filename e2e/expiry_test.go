package e2e

import (
	"regexp"
	"testing"
	"time"

	"github.com/playwright-community/playwright-go"
)

// An approval that nobody answers expires in the page and fails closed:
// the demo's booking approval, made to expire after eight seconds of real
// time (--demo-approval-expiry, by its variable), counts down on its card;
// at its time the card says nobody answered in time, the chat says nothing
// was booked, the bookings list has none, and the audit says the call was
// denied because the approval expired, never run.
func TestAnApprovalExpiresInThePageAndTheToolNeverRuns(t *testing.T) {
	t.Parallel()
	a := startApp(t, "SWEATPANTS_DEMO_APPROVAL_EXPIRY=8s", "SWEATPANTS_DEMO_PACE=0")
	p := openAgent(t, a, "chat")
	p.send("Book me a flight to Tokyo next Friday")
	p.pickFirstSeat()

	card := p.Locator(`[data-testid=elicit][data-kind=approval]`)
	p.must(expect.Locator(card).ToHaveAttribute("data-state", "pending"))
	countdown := card.GetByTestId("elicit-countdown")
	p.must(expect.Locator(countdown).ToHaveText(regexp.MustCompile(`^Expires in 0:0[1-8]$`)))
	first, err := countdown.TextContent()
	p.must(err)
	// It ticks in the page, from the time the server wrote.
	p.must(expect.Locator(countdown).Not().ToHaveText(first))
	p.must(expect.Locator(card.Locator("time[data-local-time]")).ToBeVisible())

	// At its time, the clock answers it: the card says so, the turn goes on.
	p.must(expect.Locator(card).ToHaveAttribute("data-state", "answered", playwright.LocatorAssertionsToHaveAttributeOptions{Timeout: playwright.Float(ms(patience(20 * time.Second)))}))
	p.must(expect.Locator(card.GetByTestId("elicit-answer")).ToHaveText("No answer in time (expired)"))
	p.must(expect.Locator(card.GetByTestId("elicit-countdown")).ToHaveCount(0))
	p.must(expect.Locator(p.lastAssistant()).ToHaveText("Not booked: nobody approved it in time, so the approval expired."))
	if got := reference.FindAllString(p.bookings(), -1); len(got) != 0 {
		t.Errorf("the bookings list %v, want none: the tool never ran", got)
	}

	// The audit: denied, because the approval expired.
	_, err = p.Goto(a.URL + "/tools")
	p.must(err)
	row := p.GetByTestId("tool-call").Filter(playwright.LocatorFilterOptions{Has: p.Locator(`[data-testid=tool-name]:text-is("book")`)})
	p.must(expect.Locator(row).ToHaveCount(1))
	p.must(expect.Locator(row.GetByTestId("tool-decision")).ToContainText("denied: the approval expired, nobody answered in time"))
	p.must(expect.Locator(row.GetByTestId("tool-outcome")).ToContainText("denied"))
}
