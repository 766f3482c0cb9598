package e2e

import (
	"fmt"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/playwright-community/playwright-go"
)

// expect waits for what it asserts as long as a page's own actions do.
var expect = playwright.NewPlaywrightAssertions(ms(patience(10 * time.Second)))

// chatPage is a page on the app with helpers for what users do.
type chatPage struct {
	t *testing.T
	playwright.Page
}

// openChat opens a fresh conversation with the concierge in a new browser
// session.
func openChat(t *testing.T, a *app) *chatPage {
	t.Helper()
	p := &chatPage{t: t, Page: newPage(t)}
	// The concierge, whose trip form most tests fill; the default agent
	// (the story's chat) has tests of its own (story_test.go).
	if _, err := p.Goto(a.URL + "/new?agent=concierge"); err != nil {
		t.Fatal(err)
	}
	// A first visit shows a conversation not started yet; nothing is
	// recorded until the first message (send).
	p.must(expect.Locator(p.GetByTestId("composer-input")).ToBeVisible())
	return p
}

func (p *chatPage) must(err error) {
	p.t.Helper()
	if err != nil {
		p.t.Fatal(err)
	}
}

// waitForStream waits until the stream's first render arrived, which is when
// the page reacts to the backend.
func (p *chatPage) waitForStream() {
	p.t.Helper()
	_, err := p.WaitForFunction(`() => document.documentElement.dataset.stream === 'live'`, nil)
	p.must(err)
}

func (p *chatPage) send(text string) {
	p.t.Helper()
	started := p.convPath() != ""
	input := p.GetByTestId("composer-input")
	p.must(input.Fill(text))
	p.must(input.Press("Enter"))
	if !started { // the first message starts the conversation: its page opens
		p.must(expect.Page(p.Page).ToHaveURL(regexp.MustCompile(`/c/[0-9a-f]+$`)))
		p.waitForStream()
	}
}

func (p *chatPage) pendingForm() playwright.Locator {
	return p.Locator(`[data-testid=elicit][data-state=pending]`)
}

func (p *chatPage) fillTrip(dest, travellers, cabin string, hotel bool) {
	p.t.Helper()
	form := p.pendingForm()
	p.must(form.GetByTestId("field-destination").Fill(dest))
	p.must(form.GetByTestId("field-travellers").Fill(travellers))
	_, err := form.GetByTestId("field-cabin").SelectOption(playwright.SelectOptionValues{Values: &[]string{cabin}})
	p.must(err)
	if hotel {
		p.must(form.GetByTestId("field-hotel-yes").Check())
	} else {
		p.must(form.GetByTestId("field-hotel-no").Check())
	}
}

// planTrip asks the concierge for a trip to dest (2 travellers, economy,
// no hotel) and waits for the plan.
func (p *chatPage) planTrip(dest string) {
	p.t.Helper()
	p.send("Plan a trip")
	p.fillTrip(dest, "2", "economy", false)
	p.must(p.pendingForm().GetByTestId("elicit-submit").Click())
	p.must(expect.Locator(p.lastAssistant()).ToContainText("Your trip to " + dest + " is planned"))
}

// changeDestination changes the answered trip form's destination to dest
// and waits for the new plan.
func (p *chatPage) changeDestination(dest string) {
	p.t.Helper()
	card := p.Locator(`[data-testid=elicit][data-state=answered]`)
	p.must(card.GetByTestId("change-answer").Click())
	p.must(card.GetByTestId("change-form").GetByTestId("field-destination").Fill(dest))
	p.must(card.GetByTestId("change-form").GetByTestId("elicit-submit").Click())
	p.must(expect.Locator(p.lastAssistant()).ToContainText("Your trip to " + dest + " is planned"))
}

func (p *chatPage) lastAssistant() playwright.Locator {
	return p.GetByTestId("assistant-message").Last()
}

func TestTripFormFlow(t *testing.T) {
	t.Parallel()
	a := startApp(t)
	p := openChat(t, a)
	p.must(expect.Locator(p.GetByTestId("model-badge")).ToHaveText("offline model"))

	p.send("Plan me a trip please")
	p.must(expect.Locator(p.GetByTestId("user-message")).ToHaveText("Plan me a trip please"))
	// The first message names the conversation, in the header and the window.
	p.must(expect.Locator(p.GetByTestId("conversation-title")).ToHaveText("Plan me a trip please"))
	p.must(expect.Page(p.Page).ToHaveTitle("Plan me a trip please · Sweatpants"))
	p.must(expect.Locator(p.GetByTestId("composer-input")).ToHaveValue(""))
	p.must(expect.Locator(p.pendingForm()).ToBeVisible())
	p.must(expect.Locator(p.GetByTestId("waiting")).ToHaveText("Waiting for your answer…"))

	p.fillTrip("Lisbon", "3", "business", true)
	p.must(p.pendingForm().GetByTestId("elicit-submit").Click())

	// Progress from notify shows while the agent works.
	p.must(expect.Locator(p.GetByTestId("progress")).ToBeVisible())
	p.must(expect.Locator(p.GetByTestId("progress")).ToContainText(regexp.MustCompile(`Checking flights|Comparing fares|Looking at hotels|Drafting`)))

	reply := p.lastAssistant()
	p.must(expect.Locator(reply).ToContainText("Your trip to Lisbon is planned: 3 travellers in business class, flights and a hotel."))
	p.must(expect.Locator(p.GetByTestId("progress")).ToHaveCount(0))

	// The answered form shows what was entered and no longer takes input.
	answered := p.Locator(`[data-testid=elicit][data-state=answered]`)
	p.must(expect.Locator(answered.GetByTestId("elicit-answer")).ToContainText("Lisbon"))
	p.must(expect.Locator(answered.GetByTestId("elicit-form")).ToBeHidden())

	t.Run("reload shows the same conversation", func(t *testing.T) {
		p.t = t
		_, err := p.Reload()
		p.must(err)
		p.waitForStream()
		p.must(expect.Locator(p.lastAssistant()).ToContainText("Your trip to Lisbon is planned"))
		p.must(expect.Locator(p.Locator(`[data-testid=elicit][data-state=answered]`)).ToHaveCount(1))
	})
}

func TestDeclineTakesAnotherPath(t *testing.T) {
	t.Parallel()
	a := startApp(t)
	p := openChat(t, a)
	p.send("A weekend away")
	p.must(expect.Locator(p.pendingForm()).ToBeVisible())
	p.must(p.pendingForm().GetByTestId("elicit-decline").Click())
	p.must(expect.Locator(p.lastAssistant()).ToHaveText("No problem — I won't plan a trip. If you change your mind, just send me another message."))
	p.must(expect.Locator(p.GetByTestId("elicit-answer")).ToHaveText("You declined."))

	// The agent asks again for the next message, and cancel is a third path.
	p.send("Actually, plan one")
	p.must(expect.Locator(p.pendingForm()).ToBeVisible())
	p.must(p.pendingForm().GetByTestId("elicit-cancel").Click())
	p.must(expect.Locator(p.lastAssistant()).ToContainText("You closed the form"))
}

func TestInvalidValueShowsFieldErrorAndFormStays(t *testing.T) {
	t.Parallel()
	a := startApp(t)
	p := openChat(t, a)
	p.send("Trip for a big group")
	p.fillTrip("Oslo", "12", "economy", false)
	p.must(p.pendingForm().GetByTestId("elicit-submit").Click())

	p.must(expect.Locator(p.pendingForm().GetByTestId("error-travellers")).ToHaveText("Travellers must be at most 9"))
	// What the user typed is kept, so they fix one field rather than start again.
	p.must(expect.Locator(p.pendingForm().GetByTestId("field-destination")).ToHaveValue("Oslo"))
	p.must(expect.Locator(p.pendingForm().GetByTestId("field-travellers")).ToHaveValue("12"))
	p.must(expect.Locator(p.pendingForm().GetByTestId("form-error")).ToHaveText("One answer needs fixing before this can be sent."))
	p.must(expect.Locator(p.GetByTestId("notice")).ToHaveText(""))

	p.must(p.pendingForm().GetByTestId("field-travellers").Fill("4"))
	p.must(p.pendingForm().GetByTestId("elicit-submit").Click())
	p.must(expect.Locator(p.lastAssistant()).ToContainText("Your trip to Oslo is planned: 4 travellers in economy class, flights only, no hotel."))
	p.must(expect.Locator(p.GetByTestId("notice")).ToHaveText(""))
}

func TestMissingRequiredAnswer(t *testing.T) {
	t.Parallel()
	a := startApp(t)
	p := openChat(t, a)
	p.send("Somewhere warm")
	p.must(expect.Locator(p.pendingForm()).ToBeVisible())
	p.must(p.pendingForm().GetByTestId("field-destination").Fill(""))
	p.must(p.pendingForm().GetByTestId("elicit-submit").Click())
	p.must(expect.Locator(p.pendingForm().GetByTestId("error-destination")).ToHaveText("Destination is required"))
	// A yes/no left unpicked is no, and a field with a default left empty
	// takes its default: neither is required.
	p.must(expect.Locator(p.pendingForm().GetByTestId("error-hotel")).ToHaveCount(0))
	p.must(p.pendingForm().GetByTestId("field-destination").Fill("Oslo"))
	p.must(p.pendingForm().GetByTestId("field-travellers").Fill(""))
	p.must(p.pendingForm().GetByTestId("elicit-submit").Click())
	p.must(expect.Locator(p.lastAssistant()).ToContainText("Your trip to Oslo is planned: 2 travellers in economy class, flights only, no hotel."))
}

func TestReloadMidFlowKeepsPendingForm(t *testing.T) {
	t.Parallel()
	a := startApp(t)
	p := openChat(t, a)
	p.send("Plan a trip to Kyoto")
	p.must(expect.Locator(p.pendingForm()).ToBeVisible())

	_, err := p.Reload()
	p.must(err)
	p.waitForStream()
	p.must(expect.Locator(p.GetByTestId("user-message")).ToHaveText("Plan a trip to Kyoto"))
	p.must(expect.Locator(p.pendingForm()).ToBeVisible())

	p.fillTrip("Kyoto", "1", "premium", false)
	p.must(p.pendingForm().GetByTestId("elicit-submit").Click())
	p.must(expect.Locator(p.lastAssistant()).ToContainText("Your trip to Kyoto is planned: 1 traveller in premium class"))
}

func TestTheNewestStaysInViewUnlessTheReaderScrolledUp(t *testing.T) {
	t.Parallel()
	a := startApp(t)
	p := openChat(t, a)
	p.must(p.SetViewportSize(1280, 500)) // one finished trip fills it
	p.send("Plan a trip to Rome")
	p.fillTrip("Rome", "2", "economy", false)
	p.must(p.pendingForm().GetByTestId("elicit-submit").Click())
	p.must(expect.Locator(p.lastAssistant()).ToContainText("Your trip to Rome is planned"))

	// At the bottom, what the agent asks next comes into view by itself.
	p.send("Plan a trip to Oslo")
	p.must(expect.Locator(p.pendingForm().GetByTestId("elicit-submit")).ToBeInViewport())

	// Scrolled up to read, the page stays put while the conversation moves
	// on, here from a second tab.
	_, err := p.Evaluate(`() => window.scrollTo(0, 0)`)
	p.must(err)
	other := &chatPage{t: t, Page: newPageIn(t, p.Context())}
	_, err = other.Goto(p.URL())
	other.must(err)
	other.waitForStream()
	other.fillTrip("Oslo", "3", "business", true)
	other.must(other.pendingForm().GetByTestId("elicit-submit").Click())
	p.must(expect.Locator(p.lastAssistant()).ToContainText("Your trip to Oslo is planned"))
	y, err := p.Evaluate(`() => new Promise(done => requestAnimationFrame(() => requestAnimationFrame(() => done(window.scrollY))))`)
	p.must(err)
	if y != 0 {
		t.Errorf("the page scrolled to %v while the reader was reading at the top", y)
	}

	// Sending something means wanting to see what comes of it.
	p.send("Plan a trip to Lima")
	p.must(expect.Locator(p.pendingForm().GetByTestId("elicit-submit")).ToBeInViewport())

	// A conversation opens at its end.
	_, err = other.Reload()
	other.must(err)
	other.waitForStream()
	other.must(expect.Locator(other.pendingForm().GetByTestId("elicit-submit")).ToBeInViewport())
}

func TestOnAPhoneNothingIsCutOff(t *testing.T) {
	t.Parallel()
	a := startApp(t)
	p := openChat(t, a)
	p.must(p.SetViewportSize(390, 844))
	p.send("Plan a trip to Rome, please, for the whole family and the dog")
	form := p.pendingForm()
	p.must(expect.Locator(form).ToBeVisible())
	// The page does not scroll sideways, and the form, buttons included,
	// is as wide as the screen at most.
	wide, err := p.Evaluate(`() => document.documentElement.scrollWidth - document.documentElement.clientWidth`)
	p.must(err)
	if wide != 0 {
		t.Errorf("the page is %vpx wider than a 390px screen", wide)
	}
	for _, id := range []string{"elicit", "elicit-submit", "elicit-decline", "composer-input", "send"} {
		box, err := p.Locator("[data-testid=" + id + "]").Last().BoundingBox()
		p.must(err)
		if box.X < 0 || box.X+box.Width > 390 {
			t.Errorf("%s spans x %.0f to %.0f on a 390px screen", id, box.X, box.X+box.Width)
		}
	}
	p.fillTrip("Rome", "4", "economy", true)
	p.must(form.GetByTestId("elicit-submit").Click())
	p.must(expect.Locator(p.lastAssistant()).ToContainText("Your trip to Rome is planned"))
}

func TestUserAndModelTextIsEscaped(t *testing.T) {
	t.Parallel()
	a := startApp(t)
	p := openChat(t, a)
	hostile := `<script>window.__pwned = 1</script><img src=x onerror="window.__pwned = 2">`
	p.send(hostile)
	p.must(expect.Locator(p.GetByTestId("user-message")).ToHaveText(hostile))
	p.fillTrip(`<img src=y onerror="window.__pwned = 3">`, "2", "economy", true)
	p.must(p.pendingForm().GetByTestId("elicit-submit").Click())
	p.must(expect.Locator(p.lastAssistant()).ToContainText(`Your trip to <img src=y onerror="window.__pwned = 3"> is planned`))

	_, err := p.Reload()
	p.must(err)
	p.waitForStream()
	p.must(expect.Locator(p.GetByTestId("user-message")).ToHaveText(hostile))
	pwned, err := p.Evaluate(`() => window.__pwned === undefined ? 0 : window.__pwned`)
	p.must(err)
	if pwned != 0 {
		t.Errorf("injected markup ran: window.__pwned = %v", pwned)
	}
	if n, _ := p.Locator("#messages img").Count(); n != 0 {
		t.Errorf("%d <img> elements were injected into the conversation", n)
	}
	if html, _ := p.Locator("#messages").InnerHTML(); strings.Contains(html, "<script>") {
		t.Errorf("conversation HTML contains a live <script>: %s", html)
	}
}

func TestConversationSurvivesARestart(t *testing.T) {
	t.Parallel()
	a := startApp(t)
	p := openChat(t, a)
	p.send("Plan a trip to Porto")
	p.fillTrip("Porto", "2", "economy", false)
	p.must(p.pendingForm().GetByTestId("elicit-submit").Click())
	p.must(expect.Locator(p.lastAssistant()).ToContainText("Your trip to Porto is planned"))

	a.stop(syscall.SIGTERM)
	if !strings.Contains(a.log(), "stopped") {
		t.Errorf("the server did not shut down gracefully:\n%s", a.log())
	}
	_, err := p.WaitForFunction(`() => document.documentElement.dataset.stream === 'reconnecting'`, nil)
	p.must(err)
	a.start()

	// The open page reconnects by itself and shows the conversation from the database.
	p.waitForStream()
	p.must(expect.Locator(p.lastAssistant()).ToContainText("Your trip to Porto is planned"))
	p.must(expect.Locator(p.GetByTestId("conversation-title")).ToHaveText("Plan a trip to Porto"))
	p.send("And one to Faro")
	p.must(expect.Locator(p.pendingForm()).ToBeVisible())
	p.must(expect.Locator(p.GetByTestId("user-message")).ToHaveCount(2))
}

func TestTwoTabsAnsweringAtOnceConverge(t *testing.T) {
	t.Parallel()
	a := startApp(t)
	p := openChat(t, a)
	p.send("Plan a trip")
	p.must(expect.Locator(p.pendingForm()).ToBeVisible())
	other := &chatPage{t: t, Page: newPageIn(t, p.Context())}
	_, err := other.Goto(p.URL())
	other.must(err)
	other.waitForStream()
	other.must(expect.Locator(other.pendingForm()).ToBeVisible())

	// Two answers to the same question reach the server at once.
	v, err := p.Evaluate(`async ([path, a, b]) => {
		const post = body => fetch(path, {method: 'POST', headers: {'Content-Type': 'application/json'}, body}).then(r => r.status);
		return (await Promise.all([post(a), post(b)])).sort();
	}`, []string{p.answerPath(p.pendingForm()),
		`{"action":"accept","content":{"destination":"Oslo","travellers":2,"cabin":"economy","hotel":false}}`,
		`{"action":"accept","content":{"destination":"Lima","travellers":3,"cabin":"business","hotel":true}}`})
	p.must(err)
	if got := fmt.Sprint(v); got != "[204 409]" {
		t.Fatalf("statuses of the two answers: %s, want one accepted (204) and one refused (409)", got)
	}

	// One answer stands, the other is refused in place, and both tabs show
	// the same conversation.
	for _, tab := range []*chatPage{p, other} {
		tab.must(expect.Locator(tab.lastAssistant()).ToContainText("is planned"))
		tab.must(expect.Locator(tab.GetByTestId("notice")).ToHaveText("That question was already answered; the first answer stands."))
	}
	mine, err := p.lastAssistant().TextContent()
	p.must(err)
	theirs, err := other.lastAssistant().TextContent()
	p.must(err)
	if mine != theirs {
		t.Errorf("the tabs disagree:\n%q\n%q", mine, theirs)
	}
	p.must(expect.Locator(p.GetByTestId("assistant-message")).ToHaveCount(1))
	other.must(expect.Locator(other.GetByTestId("assistant-message")).ToHaveCount(1))
}
