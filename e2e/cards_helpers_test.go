package e2e

import (
	"regexp"
	"testing"

	"github.com/playwright-community/playwright-go"
)

// cardKind is a kind of question card and how a test reaches and answers
// it: the showcase agent asks each built-in kind, the chat agent the story's
// flight picker.
type cardKind struct {
	name  string
	agent string
	ask   string // what to send for the card to appear
	kind  string // its data-kind
	// refuse submits an answer the card refuses, leaving it pending with an
	// error; nil for a card that cannot be answered wrongly by hand.
	refuse func(p *chatPage, q playwright.Locator)
	// answer answers the card.
	answer func(p *chatPage, q playwright.Locator)
	// ownNo is set for a card whose own answers include saying no (an
	// approval's Deny), which offers no Decline or Cancel beside them.
	ownNo bool
}

func submitEmpty(p *chatPage, q playwright.Locator) {
	p.t.Helper()
	p.must(q.GetByTestId("elicit-submit").Click())
	p.must(expect.Locator(q.GetByTestId("form-error")).ToBeVisible())
}

func decline(p *chatPage, q playwright.Locator) {
	p.t.Helper()
	p.must(q.GetByTestId("elicit-decline").Click())
}

func bookFirstSeat(p *chatPage, q playwright.Locator) {
	p.t.Helper()
	p.must(q.Locator("li.flight").First().Locator("input[name=seat]").First().Check())
	p.must(q.GetByTestId("elicit-submit").Click())
}

// cardKinds are every kind of card there is.
var cardKinds = []cardKind{
	{name: "form", agent: "showcase", ask: "profile", kind: "form", refuse: submitEmpty,
		answer: func(p *chatPage, q playwright.Locator) {
			p.must(q.GetByTestId("field-name").Fill("Ann"))
			p.must(q.GetByTestId("field-age").Fill("30"))
			p.must(q.GetByTestId("field-newsletter-no").Check())
			p.must(q.GetByTestId("elicit-submit").Click())
		}},
	{name: "choice", agent: "showcase", ask: "pick a colour", kind: "choice", refuse: submitEmpty,
		answer: func(p *chatPage, q playwright.Locator) {
			p.must(q.GetByTestId("choice-green").Check())
			p.must(q.GetByTestId("elicit-submit").Click())
		}},
	{name: "confirm", agent: "showcase", ask: "confirm", kind: "confirm",
		answer: func(p *chatPage, q playwright.Locator) { p.must(q.GetByTestId("elicit-no").Click()) }},
	{name: "location", agent: "showcase", ask: "where am i", kind: "location", answer: decline},
	{name: "clipboard read", agent: "showcase", ask: "paste", kind: "clipboard-read", answer: decline},
	{name: "clipboard write", agent: "showcase", ask: "copy", kind: "clipboard-write", answer: decline},
	{name: "flight", agent: "showcase", ask: "book a flight", kind: "flight", refuse: submitEmpty, answer: bookFirstSeat},
	{name: "story flight", agent: "chat", ask: "Book me a flight to Tokyo next Friday", kind: "flight", refuse: submitEmpty, answer: bookFirstSeat},
	{name: "approval", agent: "showcase", ask: "approve a tool call", kind: "approval", refuse: editArgsWrong, ownNo: true,
		answer: func(p *chatPage, q playwright.Locator) { p.must(q.GetByTestId("approval-deny").Click()) }},
}

// editArgsWrong opens an approval's editor of arguments, makes them
// something that is not JSON and allows the call: the card refuses it.
func editArgsWrong(p *chatPage, q playwright.Locator) {
	p.t.Helper()
	p.must(q.GetByTestId("approval-edit-toggle").Click())
	p.must(q.GetByTestId("approval-args-editor").Fill(`{"olderThanDays": ninety}`))
	p.must(q.GetByTestId("approval-once").Click())
	p.must(expect.Locator(q.GetByTestId("error-args")).ToBeVisible())
}

// eachCardKind runs f for every kind of card, in parallel, each in its own
// browser session on a.
func eachCardKind(t *testing.T, f func(t *testing.T, k cardKind)) {
	t.Helper()
	for _, k := range cardKinds {
		t.Run(k.name, func(t *testing.T) {
			t.Parallel()
			f(t, k)
		})
	}
}

// open starts a chat with k's agent and asks for its card.
func (k cardKind) open(t *testing.T, a *app) (*chatPage, playwright.Locator) {
	t.Helper()
	p := openAgent(t, a, k.agent)
	return p, p.start(k.ask, k.kind)
}

// start sends the first message of a conversation with the Send button
// (a plain form post) and waits for the question of kind it leads to (any,
// for "").
func (p *chatPage) start(text, kind string) playwright.Locator {
	p.t.Helper()
	p.must(p.GetByTestId("composer-input").Fill(text))
	p.must(p.GetByTestId("send").Click())
	p.must(expect.Page(p.Page).ToHaveURL(regexp.MustCompile(`/c/[0-9a-f]+$`)))
	p.waitForStream()
	q := p.active()
	if kind == "" {
		p.must(expect.Locator(q).ToHaveCount(1))
	} else {
		p.must(expect.Locator(q).ToHaveAttribute("data-kind", kind))
	}
	return q
}

// withdrawn opens k's card and stops the turn that asked it, which
// withdraws it.
func (k cardKind) withdrawn(t *testing.T, a *app) (*chatPage, playwright.Locator) {
	t.Helper()
	p, _ := k.open(t, a)
	p.must(p.GetByTestId("stop").Click())
	q := p.Locator(`[data-testid=elicit][data-state=interrupted]`)
	p.must(expect.Locator(q).ToHaveCount(1))
	return p, q
}

// setTheme shows the page light or dark, as the theme toggle does.
func (p *chatPage) setTheme(theme string) {
	p.t.Helper()
	_, err := p.Evaluate(`theme => { document.documentElement.dataset.theme = theme }`, theme)
	p.must(err)
}

// checkCards runs the accessibility check on the cards and the status
// line beneath them (the progress bar), light, then dark. The rest of the
// page has tests of its own.
func (p *chatPage) checkCards(what string) {
	p.t.Helper()
	for _, theme := range []string{"light", "dark"} {
		p.setTheme(theme)
		checkAccessibleWithin(p.t, p.Page, what+" ("+theme+")", "[data-testid=elicit]", "#status")
	}
	p.setTheme("light")
}

// tapTargetsFit fails the test when something to press in a card is
// smaller than 24 × 24 px (WCAG 2.2's minimum): a radio or a checkbox
// counts with its label, which takes the press too.
func (p *chatPage) tapTargetsFit(what string) {
	p.t.Helper()
	v, err := p.Evaluate(`() => {
		const small = []
		for (const el of document.querySelectorAll('[data-testid=elicit] :is(button, select, textarea, input:not([type=hidden]), a[href], summary)')) {
			if (el.offsetParent === null) continue
			const target = ((el.type === 'radio' || el.type === 'checkbox') && el.closest('label')) || el
			const r = target.getBoundingClientRect()
			if (r.width < 24 || r.height < 24) small.push((el.dataset.testid || el.name || el.tagName) + ' ' + Math.round(r.width) + '×' + Math.round(r.height))
		}
		return small.join(', ')
	}`)
	p.must(err)
	if s, _ := v.(string); s != "" {
		p.t.Errorf("%s: tap targets smaller than 24 × 24 px: %s", what, s)
	}
}
