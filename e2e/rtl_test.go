package e2e

import (
	"testing"

	"github.com/playwright-community/playwright-go"

	"github.com/sweatpants-go/sweatpants/llm/llmtest"
)

// Text in Hebrew or Arabic reads right to left wherever the page shows
// what someone wrote: the user's message, the agent's reply, a side
// question and its answer, an answer given in a form, the conversation's
// title in the header and in the sidebar, and what is being typed. Code in
// a reply, and the page's own words around it all, stay left to right.
func TestRightToLeftTextReadsRightToLeft(t *testing.T) {
	t.Parallel()
	const (
		ask   = "תכנן לי טיול לאילת"
		city  = "אילת"
		plan  = "הטיול שלך לאילת מתוכנן.\n\n```\nbook --city Eilat\n```\n"
		aside = "ما هو الطقس هناك؟"
		side  = "الطقس مشمس."
	)
	model := llmtest.NewServer(t, llmtest.Call("plan-trip", `{"request":"`+ask+`"}`), llmtest.Text(plan), llmtest.Text(side))
	a := startApp(t, "SWEATPANTS_PROVIDER=openai", "OPENAI_API_KEY=test", "OPENAI_BASE_URL="+model.URL)
	p := openAgent(t, a, "concierge")
	p.send(ask)
	p.fillTrip(city, "2", "economy", false)
	p.must(p.pendingForm().GetByTestId("elicit-submit").Click())
	p.must(expect.Locator(p.lastAssistant()).ToContainText("הטיול שלך"))
	reply := p.GetByTestId("reply-turn").Last()
	p.must(reply.GetByTestId("ask-aside").Click())
	p.must(reply.GetByTestId("aside-input").Fill(aside))
	p.must(reply.GetByTestId("aside-send").Click())
	p.must(expect.Locator(p.GetByTestId("side-reply")).ToHaveText(side))
	p.must(p.GetByTestId("composer-input").Fill("שלום"))

	direction := func(what string, loc playwright.Locator, want string) {
		t.Helper()
		got, err := loc.First().Evaluate(`el => getComputedStyle(el).direction`, nil)
		p.must(err)
		if got != want {
			t.Errorf("%s: direction %v, want %s", what, got, want)
		}
	}
	answered := p.Locator(`[data-testid=elicit][data-state=answered]`)
	for _, c := range []struct {
		what string
		loc  playwright.Locator
		want string
	}{
		{"the user's message", p.GetByTestId("user-message"), "rtl"},
		{"the agent's reply", p.lastAssistant().Locator("p").Filter(playwright.LocatorFilterOptions{HasText: "הטיול"}), "rtl"},
		{"the agent's own words before it", p.lastAssistant().Locator("p").Filter(playwright.LocatorFilterOptions{HasText: "Your trip"}), "ltr"},
		{"the code in the reply", p.lastAssistant().Locator("pre"), "ltr"},
		{"the side question", p.GetByTestId("side-question"), "rtl"},
		{"the side answer", p.GetByTestId("side-reply").Locator("p"), "rtl"},
		{"the destination answered in the form", answered.Locator("dd").First(), "rtl"},
		{"the form's own words", answered.Locator("dt").First(), "ltr"},
		{"the title in the header", p.GetByTestId("conversation-title"), "rtl"},
		{"the title in the sidebar", p.Locator(".conv-link.current"), "rtl"},
		{"the message being typed", p.GetByTestId("composer-input"), "rtl"},
		{"the page around them", p.GetByTestId("ask-aside").First(), "ltr"},
	} {
		direction(c.what, c.loc, c.want)
	}
	p.checkBothThemes("messages right to left")
}
