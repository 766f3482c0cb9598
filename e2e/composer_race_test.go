package e2e

import (
	"testing"

	"github.com/playwright-community/playwright-go"
)

// What the user types once the reply has come, while the answer to the
// send is still on its way, stays in the composer: the answer empties the
// composer only if it still holds the words sent.
func TestWordsTypedBeforeTheSendIsAnsweredStay(t *testing.T) {
	t.Parallel()
	a := startApp(t)
	p := openChat(t, a)
	p.planTrip("Oslo")

	typed := make(chan struct{})
	p.must(p.Route("**/messages", func(route playwright.Route) {
		resp, err := route.Fetch()
		if err != nil {
			route.Abort()
			return
		}
		go func() { // held until the next words are typed
			<-typed
			route.Fulfill(playwright.RouteFulfillOptions{Response: resp})
		}()
	}))
	p.send("Are we there yet?")
	p.must(expect.Locator(p.GetByTestId("assistant-message")).ToHaveCount(2))
	p.must(p.GetByTestId("composer-input").Fill("And then Bergen"))
	close(typed)
	p.must(expect.Locator(p.GetByTestId("send")).ToBeEnabled())
	p.must(expect.Locator(p.GetByTestId("composer-input")).ToHaveValue("And then Bergen"))
}
