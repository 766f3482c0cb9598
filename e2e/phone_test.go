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
