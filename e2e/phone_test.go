package e2e

import (
	"testing"
)

// phoneWidth is a common phone's width in CSS pixels.
const phoneWidth = 390

// fitsThePhone fails the test when the page is wider than the phone's
// screen, which a phone shows by scrolling the whole page sideways.
func (p *chatPage) fitsThePhone(what string) {
	p.t.Helper()
	v, err := p.Evaluate(`() => document.documentElement.scrollWidth`)
	p.must(err)
	if w, _ := v.(int); w > phoneWidth {
		wide, _ := p.Evaluate(`max => [...document.querySelectorAll('#chat *')]
			.filter(el => el.getBoundingClientRect().right > max)
			.slice(0, 5).map(el => el.tagName.toLowerCase() + (el.className && typeof el.className === 'string' ? '.' + el.className.split(' ').join('.') : '') + ' ' + Math.round(el.getBoundingClientRect().right))`, phoneWidth)
		p.t.Errorf("%s: the page is %d px wide on a %d px phone; wider than the screen: %v", what, w, phoneWidth, wide)
	}
}

// On a 390 px phone nothing of a card makes the page wider than the
// screen: each kind open, after an error and answered.
func TestCardsFitAPhone(t *testing.T) {
	t.Parallel()
	a := startApp(t)
	eachCardKind(t, func(t *testing.T, k cardKind) {
		p := openAgent(t, a, k.agent)
		p.must(p.SetViewportSize(phoneWidth, 844))
		q := p.start(k.ask, k.kind)
		p.fitsThePhone(k.name + " card, open")
		if k.refuse != nil {
			k.refuse(p, q)
			p.fitsThePhone(k.name + " card, after an error")
		}
		k.answer(p, q)
		p.must(expect.Locator(p.lastAnswered()).ToBeVisible())
		p.fitsThePhone(k.name + " card, answered")
	})
}

// On a phone the header is one row: the conversations' button, the title,
// cut short when it is long, the model, and one button for the rest
// (rename, delete, the agent, the developers' links).
func TestOnAPhoneTheHeaderIsOneRow(t *testing.T) {
	t.Parallel()
	a := startApp(t)
	p := phonePage(t)
	_, err := p.Goto(a.URL + "/new?agent=chat")
	p.must(err)
	p.headerIsOneRow("the new chat")
	p.send("Book a flight to Lisbon next Friday, with a window seat, and a long message that makes a long title")
	p.must(expect.Locator(p.GetByTestId("elicit").Last()).ToBeVisible())
	p.headerIsOneRow("a conversation with a long title")
	p.must(expect.Locator(p.GetByTestId("model-badge")).ToBeInViewport())

	// The rest is a tap away, and goes away again.
	more, rename := p.GetByTestId("header-more"), p.GetByTestId("rename")
	p.must(expect.Locator(rename).ToBeHidden())
	p.must(expect.Locator(more).ToHaveAttribute("aria-expanded", "false"))
	p.must(more.Click())
	p.must(expect.Locator(more).ToHaveAttribute("aria-expanded", "true"))
	for _, id := range []string{"rename", "delete", "tree-link", "debug-page-link"} {
		p.must(expect.Locator(p.GetByTestId(id)).ToBeInViewport())
	}
	p.must(expect.Locator(p.Locator(".chat-header .agent")).ToHaveText("agent: chat"))
	p.must(expect.Locator(p.Locator(".chat-header .agent")).ToBeVisible())
	p.fitsThePhone("the header's menu open")
	p.checkBothThemes("the header's menu open on a phone")
	p.must(p.Keyboard().Press("Escape"))
	p.must(expect.Locator(rename).ToBeHidden())
	p.must(expect.Locator(more).ToBeFocused())

	p.must(more.Click())
	p.must(rename.Click())
	p.must(expect.Locator(p.GetByTestId("rename-input")).ToBeFocused())
	p.must(expect.Locator(rename).ToBeHidden())
	p.headerIsOneRow("a conversation being renamed")
}

// headerIsOneRow fails the test unless what the chat's header shows is on
// one row.
func (p *chatPage) headerIsOneRow(what string) {
	p.t.Helper()
	v, err := p.Locator(".chat-header").Evaluate(`header => {
		const shown = [...header.children].map(el => ({el, r: el.getBoundingClientRect()}))
			.filter(({el, r}) => el.checkVisibility() && r.width > 0 && r.height > 0)
			.sort((a, b) => a.r.top - b.r.top)
		let rows = 0, bottom = -Infinity
		for (const {r} of shown) {
			if (r.top >= bottom) { rows++; bottom = r.bottom } else bottom = Math.max(bottom, r.bottom)
		}
		return {rows, parts: shown.map(({el, r}) => (el.dataset.testid || el.className || el.tagName) + ' ' + Math.round(r.top) + '–' + Math.round(r.bottom))}
	}`, nil)
	p.must(err)
	got := v.(map[string]any)
	if got["rows"] != 1 {
		p.t.Errorf("%s: the header is %v rows on a %d px phone: %v", what, got["rows"], phoneWidth, got["parts"])
	}
}
