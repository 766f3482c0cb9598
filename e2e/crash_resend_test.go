package e2e

import (
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/playwright-community/playwright-go"
)

// The server dies just after it recorded an answer, before the page heard
// back. Once it is up again the page sends the answer again by itself: that
// resend is the answer already recorded, not a conflict, so no alert says
// the question was already answered, and the trip is planned once.
func TestTheResendAfterACrashIsNotAConflict(t *testing.T) {
	t.Parallel()
	a := startApp(t)
	p := openChat(t, a)
	p.send("Plan a trip")
	p.must(expect.Locator(p.pendingForm()).ToBeVisible())
	p.fillTrip("Tromsø", "2", "economy", false)

	// The first post of the answer goes through to the server; the server
	// is killed once it has answered, and the page is told the connection
	// broke. The posts after it (the page's own retries) go through as they
	// are; the status of the one the restarted server answers is kept.
	recorded, killed := make(chan struct{}), make(chan struct{})
	var posts, resent atomic.Int32
	p.must(p.Route("**/elicits/**", func(r playwright.Route) {
		if r.Request().Method() != "POST" || strings.HasSuffix(r.Request().URL(), "/progress") {
			r.Continue()
			return
		}
		if posts.Add(1) > 1 {
			res, err := r.Fetch()
			if err != nil {
				r.Abort("connectionrefused")
				return
			}
			resent.Store(int32(res.Status()))
			r.Fulfill(playwright.RouteFulfillOptions{Response: res})
			return
		}
		res, err := r.Fetch()
		if err != nil || res.Status() != 204 {
			t.Errorf("the first post of the answer was not recorded: %v", err)
		}
		close(recorded)
		<-killed
		r.Abort("connectionreset")
	}))
	p.must(p.pendingForm().GetByTestId("elicit-submit").Click())
	<-recorded
	a.stop(syscall.SIGKILL)
	close(killed)
	a.start()

	p.must(expect.Locator(p.lastAssistant()).ToContainText("Your trip to Tromsø is planned"))
	waitFor(t, 30*time.Second, "the page to send the answer again", func() bool { return resent.Load() != 0 })
	if got := resent.Load(); got != 204 {
		t.Errorf("the page's resend of the recorded answer: status %d, want 204", got)
	}
	p.must(expect.Locator(p.GetByTestId("assistant-message")).ToHaveCount(1))
	// No alert. If anything, the page is told quietly that the answer was
	// kept; that news goes when the reply it speaks of arrives, which may
	// come first or second as the resend and the resumed turn race.
	p.must(expect.Locator(p.Locator(`[role=alert].shown`)).ToHaveCount(0))
	if text, err := p.GetByTestId("notice").TextContent(); err != nil || text != "" && text != "Your answer was already recorded." {
		t.Errorf("the notice after the resend: %q (%v), want none or the quiet news", text, err)
	}
}
