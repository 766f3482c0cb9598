package e2e

import (
	"testing"

	"github.com/playwright-community/playwright-go"
)

// method is the card of the method a question calls (package protocol),
// while it waits: the page runs the implementation when its run button is
// clicked.
func (p *chatPage) method(kind string) playwright.Locator {
	return p.Locator(`[data-method="` + kind + `"]`).Last()
}

// run clicks the run button of the method kind the turn now waits on.
func (p *chatPage) run(kind string) {
	p.t.Helper()
	card := p.method(kind)
	p.must(expect.Locator(card).ToBeVisible())
	p.must(card.Locator("button[data-run-method]").Click())
}

// TestTheDemoMethodsInChromium calls the demo's own methods — a photo from
// the camera and a desktop notification, implemented by the demo's module
// (examples/demo/demoweb/modules/device.js) with the browser's own APIs —
// through the showcase: with the permission granted the reply says what
// the device did, refused it says so, and both say the progress the page
// reported. Chromium films a test pattern (--use-fake-device-for-media-stream,
// in the harness); a page sees the camera only where "camera" is granted.
func TestTheDemoMethodsInChromium(t *testing.T) {
	t.Parallel()
	a := startApp(t)
	run := func(name string, f func(t *testing.T)) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			f(t)
		})
	}

	run("photo granted", func(t *testing.T) {
		p := openShowcase(t, a, "camera")
		p.send("take a photo")
		p.run("take-photo")
		p.must(expect.Locator(p.lastAssistant()).ToContainText("Took a photo: 320×240, a JPEG of"))
		p.must(expect.Locator(p.lastAssistant()).ToContainText("Your device went through: requesting-permission → capturing."))
		// The camera is off again: no track of the page is live.
		live, err := p.Evaluate(`() => [...document.querySelectorAll('video')].some(v => v.srcObject)`)
		p.must(err)
		if live != false {
			t.Errorf("a video still holds the camera's stream")
		}
	})

	run("photo refused", func(t *testing.T) {
		p := openShowcase(t, a)
		p.send("take a photo")
		p.run("take-photo")
		p.must(expect.Locator(p.lastAssistant()).ToHaveText("Permission was refused — no photo taken. Your device went through: requesting-permission."))
	})

	run("notification granted", func(t *testing.T) {
		p := openShowcase(t, a, "notifications")
		p.send("notify me")
		p.run("notify-desktop")
		p.must(expect.Locator(p.lastAssistant()).ToHaveText("Notified: your desktop showed “Sweatpants”."))
	})

	run("notification refused", func(t *testing.T) {
		p := openShowcase(t, a)
		p.send("notify me")
		p.run("notify-desktop")
		p.must(expect.Locator(p.lastAssistant()).ToContainText("Permission was refused — no notification shown."))
	})
}
