package e2e

import (
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/playwright-community/playwright-go"
)

// TestElicitKindsInChromium tries every kind of question in real Chromium
// through the showcase agent: accept, decline and cancel each; device
// permissions granted and refused; two agents asking at once; invalid
// content refused beside its field. One server serves every case; each
// case is its own browser session, and they run in parallel.
func TestElicitKindsInChromium(t *testing.T) {
	t.Parallel()
	a := startApp(t)
	run := func(name string, f func(t *testing.T)) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			f(t)
		})
	}

	run("confirm", func(t *testing.T) {
		p := openShowcase(t, a)
		q := p.ask("confirm", "confirm")
		p.must(expect.Locator(q.GetByTestId("elicit-yes")).ToHaveText("Delete them"))
		p.must(q.GetByTestId("elicit-yes").Click())
		p.replied("Done: your drafts are deleted.")
		p.must(expect.Locator(p.lastAnswered().GetByTestId("elicit-answer")).ToHaveText("Yes — Delete them"))

		p.must(p.ask("confirm", "confirm").GetByTestId("elicit-no").Click())
		p.replied("Kept: your drafts are untouched.")
		p.must(expect.Locator(p.lastAnswered().GetByTestId("elicit-answer")).ToHaveText("No — Keep them"))

		// Declining and dismissing reach the agent as what they are.
		p.must(p.ask("confirm", "confirm").GetByTestId("elicit-decline").Click())
		p.replied("You declined — your drafts are untouched.")
		p.must(expect.Locator(p.lastAnswered().GetByTestId("elicit-answer")).ToHaveText("You declined."))
		p.must(p.ask("confirm", "confirm").GetByTestId("elicit-cancel").Click())
		p.replied("You dismissed the question — your drafts are untouched.")
		p.must(expect.Locator(p.lastAnswered().GetByTestId("elicit-answer")).ToHaveText("You dismissed this question."))
	})

	run("choice", func(t *testing.T) {
		p := openShowcase(t, a)
		q := p.ask("pick a colour", "choice")
		// Nothing picked: refused beside the options; the question stays.
		p.must(q.GetByTestId("elicit-submit").Click())
		p.must(expect.Locator(q.GetByTestId("error-option")).ToHaveText("Option is required: pick one, or write your own"))
		p.must(expect.Locator(q.GetByTestId("form-error")).ToHaveText("One answer needs fixing before this can be sent."))

		// Writing one's own answer after picking an option sends only one's own.
		p.must(q.GetByTestId("choice-red").Check())
		p.must(q.GetByTestId("choice-else").Fill("teal"))
		p.must(expect.Locator(q.GetByTestId("choice-red")).Not().ToBeChecked())
		p.must(expect.Locator(q.GetByTestId("choice-else-pick")).ToBeChecked())
		p.must(q.GetByTestId("elicit-submit").Click())
		p.replied("A colour of your own: teal.")
		p.must(expect.Locator(p.lastAnswered().GetByTestId("elicit-answer")).ToHaveText("Your own answer: “teal”"))

		q = p.ask("pick a colour", "choice")
		p.must(q.GetByTestId("choice-green").Check())
		p.must(q.GetByTestId("elicit-submit").Click())
		p.replied("The theme is now green.")
		p.must(expect.Locator(p.lastAnswered().GetByTestId("elicit-answer")).ToHaveText("green"))

		p.must(p.ask("pick a colour", "choice").GetByTestId("elicit-decline").Click())
		p.replied("You declined — the theme stays as it is.")
		p.must(p.ask("pick a colour", "choice").GetByTestId("elicit-cancel").Click())
		p.replied("You dismissed the question — the theme stays as it is.")
	})

	run("location granted", func(t *testing.T) {
		p := openShowcase(t, a, "geolocation")
		p.must(p.Context().SetGeolocation(&playwright.Geolocation{Latitude: 52.3731, Longitude: 4.8922, Accuracy: playwright.Float(25)}))
		q := p.ask("where am i", "location")
		p.must(expect.Locator(q).ToContainText("An approximate location is enough."))
		p.must(q.GetByTestId("location-share").Click())
		// Permission was granted beforehand, so the browser only acquires.
		p.replied("You are at 52.3731, 4.8922 (within 25 m). Your device went through: acquiring.")
		p.must(expect.Locator(p.lastAnswered().GetByTestId("elicit-answer")).ToHaveText("Shared location 52.37310, 4.89220 (within 25 m)"))

		q = p.ask("my precise location", "location")
		p.must(expect.Locator(q).ToContainText("A precise location is asked for"))
		p.must(q.GetByTestId("location-share").Click())
		p.replied("You are at 52.3731, 4.8922 (within 25 m). Your device went through: acquiring.")
	})

	run("location stages show live", func(t *testing.T) {
		p := openShowcase(t, a)
		q := p.ask("where am i", "location")
		// The stages the glue reports, posted as it posts them, show on the
		// card as they arrive.
		path := p.answerPath(q)
		if got := p.postJSON(path+"/progress", `{"stage":"requesting-permission"}`); got != http.StatusNoContent {
			t.Fatalf("progress: got %d, want 204", got)
		}
		p.must(expect.Locator(q.GetByTestId("elicit-stage")).ToHaveText("Asking for permission…"))
		if got := p.postJSON(path+"/progress", `{"stage":"acquiring"}`); got != http.StatusNoContent {
			t.Fatalf("progress: got %d, want 204", got)
		}
		p.must(expect.Locator(q.GetByTestId("elicit-stage")).ToHaveText("Finding your location…"))
		p.must(q.GetByTestId("elicit-decline").Click())
		p.replied("You declined — I don't know where you are.")
	})

	run("location denied", func(t *testing.T) {
		// No permission granted: headless Chromium refuses the prompt, and the
		// refusal is the answer "denied", not an error.
		p := openShowcase(t, a)
		q := p.ask("where am i", "location")
		p.must(q.GetByTestId("location-share").Click())
		p.replied("Permission was refused — I don't know where you are.")
		p.must(expect.Locator(p.lastAnswered().GetByTestId("elicit-answer")).ToHaveText("Permission refused."))
		p.must(expect.Locator(p.GetByTestId("notice")).ToHaveText(""))

		// "Don't allow" is the same refusal without asking the browser.
		p.must(p.ask("where am i", "location").GetByTestId("elicit-deny").Click())
		p.replied("Permission was refused — I don't know where you are.")
		p.must(p.ask("where am i", "location").GetByTestId("elicit-cancel").Click())
		p.replied("You dismissed the question — I don't know where you are.")
	})

	run("clipboard read granted", func(t *testing.T) {
		p := openShowcase(t, a, "clipboard-read", "clipboard-write")
		text := `<b>bold</b> & “quotes”`
		_, err := p.Evaluate(`text => navigator.clipboard.writeText(text)`, text)
		p.must(err)
		q := p.ask("paste", "clipboard-read")
		p.must(q.GetByTestId("clipboard-paste").Click())
		n := len([]rune(text))
		p.replied(fmt.Sprintf("Your clipboard holds %d characters: “%s”", n, text))
		p.must(expect.Locator(p.lastAnswered().GetByTestId("elicit-answer")).ToHaveText(fmt.Sprintf("Pasted %d characters.", n)))

		p.must(p.ask("paste", "clipboard-read").GetByTestId("elicit-decline").Click())
		p.replied("You declined — I didn't read your clipboard.")
	})

	run("clipboard read refused", func(t *testing.T) {
		p := openShowcase(t, a)
		q := p.ask("paste", "clipboard-read")
		p.must(q.GetByTestId("clipboard-paste").Click())
		p.replied("Permission was refused — I didn't read your clipboard.")
		p.must(expect.Locator(p.lastAnswered().GetByTestId("elicit-answer")).ToHaveText("Permission refused."))
		p.must(p.ask("paste", "clipboard-read").GetByTestId("elicit-cancel").Click())
		p.replied("You dismissed the question — I didn't read your clipboard.")
	})

	run("clipboard write granted", func(t *testing.T) {
		p := openShowcase(t, a, "clipboard-read", "clipboard-write")
		q := p.ask("copy", "clipboard-write")
		code, err := q.GetByTestId("clipboard-text").TextContent()
		p.must(err)
		if !regexp.MustCompile(`^SWEAT-\d{4}$`).MatchString(code) {
			t.Fatalf("the text to copy is %q, want a booking code", code)
		}
		p.must(q.GetByTestId("clipboard-copy").Click())
		p.replied("Copied " + code + " to your clipboard.")
		p.must(expect.Locator(p.lastAnswered().GetByTestId("elicit-answer")).ToHaveText("Copied to your clipboard."))
		got, err := p.Evaluate(`() => navigator.clipboard.readText()`)
		p.must(err)
		if got != code {
			t.Errorf("clipboard: got %q, want %q", got, code)
		}
		p.must(p.ask("copy", "clipboard-write").GetByTestId("elicit-decline").Click())
		p.must(expect.Locator(p.lastAssistant()).ToContainText("You declined — nothing was copied. Your code is SWEAT-"))
	})

	run("clipboard write refused", func(t *testing.T) {
		// Chromium lets a page write the clipboard in answer to a click
		// without asking, so the refusal is the user's: "Don't allow".
		p := openShowcase(t, a)
		q := p.ask("copy", "clipboard-write")
		code, err := q.GetByTestId("clipboard-text").TextContent()
		p.must(err)
		p.must(q.GetByTestId("elicit-deny").Click())
		p.replied("Permission was refused — nothing was copied. Your code is " + code + ".")
		p.must(p.ask("copy", "clipboard-write").GetByTestId("elicit-cancel").Click())
		p.must(expect.Locator(p.lastAssistant()).ToContainText("You dismissed the question — nothing was copied."))
	})

	run("flight", func(t *testing.T) {
		p := openShowcase(t, a)
		q := p.ask("book a flight", "flight")
		p.must(expect.Locator(q.Locator("li.flight")).ToHaveCount(3))
		p.must(expect.Locator(q.GetByTestId("flight-LZ440")).ToContainText("19:20 → 21:50"))
		p.must(expect.Locator(q.GetByTestId("flight-LZ440")).ToContainText("€74"))

		// A flight without a seat is refused beside the seats.
		p.must(q.GetByTestId("flight-SP101-pick").Check())
		p.must(q.GetByTestId("elicit-submit").Click())
		p.must(expect.Locator(q.GetByTestId("error-seat")).ToHaveText("Seat is required"))
		// So is a seat that is not free, whoever sends it: the kind's own rule.
		if got := p.postJSON(p.answerPath(q), `{"action":"accept","content":{"flight":"SP101","seat":"99Z"}}`); got != http.StatusUnprocessableEntity {
			t.Fatalf("a taken seat: got %d, want 422", got)
		}
		p.must(expect.Locator(q.GetByTestId("error-seat")).ToHaveText(`Seat "99Z" is not free on SP101; free seats: [3A 3C 12F]`))

		// Picking a seat picks its flight.
		p.must(q.GetByTestId("seat-SP205-21A").Check())
		p.must(expect.Locator(q.GetByTestId("flight-SP205-pick")).ToBeChecked())
		p.must(q.GetByTestId("elicit-submit").Click())
		p.replied("Booked SP205 Amsterdam → Lisbon, departing 13:45, seat 21A (€98).")
		p.must(expect.Locator(p.lastAnswered().GetByTestId("elicit-answer")).ToHaveText(regexp.MustCompile(`Flight\s*SP205\s*Seat\s*21A`)))

		p.must(p.ask("book a flight", "flight").GetByTestId("elicit-decline").Click())
		p.replied("You declined — No flight booked.")
		p.must(p.ask("book a flight", "flight").GetByTestId("elicit-cancel").Click())
		p.replied("You dismissed the question — No flight booked.")
	})

	run("change a booking in the flight list", func(t *testing.T) {
		p := openShowcase(t, a)
		q := p.ask("book a flight", "flight")
		p.must(q.GetByTestId("seat-SP205-21A").Check())
		p.must(q.GetByTestId("elicit-submit").Click())
		p.replied("Booked SP205 Amsterdam → Lisbon, departing 13:45, seat 21A (€98).")

		// Changing the answer shows the kind's own component again, holding
		// the answer given.
		card := p.lastAnswered()
		p.must(card.GetByTestId("change-answer").Click())
		form := card.GetByTestId("change-form")
		p.must(expect.Locator(form.Locator("li.flight")).ToHaveCount(3))
		p.must(expect.Locator(form.GetByTestId("seat-SP205-21A")).ToBeChecked())
		p.must(form.GetByTestId("seat-LZ440-30C").Check())
		p.must(expect.Locator(form.GetByTestId("flight-SP205-pick")).Not().ToBeChecked())
		p.must(form.GetByTestId("elicit-submit").Click())
		p.replied("Booked LZ440 Amsterdam → Lisbon, departing 19:20, seat 30C (€74).")
		p.must(expect.Locator(card.GetByTestId("branch-index")).ToHaveText("2 / 2"))
		p.must(expect.Locator(form).ToBeHidden())

		// The first booking is still there, one click away.
		p.must(card.GetByTestId("branch-prev").Click())
		p.replied("Booked SP205 Amsterdam → Lisbon, departing 13:45, seat 21A (€98).")
	})

	run("change a yes to a no", func(t *testing.T) {
		p := openShowcase(t, a)
		p.must(p.ask("confirm", "confirm").GetByTestId("elicit-yes").Click())
		p.replied("Done: your drafts are deleted.")
		card := p.lastAnswered()
		p.must(card.GetByTestId("change-answer").Click())
		p.must(card.GetByTestId("change-form").GetByTestId("elicit-no").Click())
		p.replied("Kept: your drafts are untouched.")
		p.must(expect.Locator(card.GetByTestId("elicit-answer")).ToHaveText("No — Keep them"))
		p.must(expect.Locator(card.GetByTestId("branch-index")).ToHaveText("2 / 2"))
	})

	run("form of every field type", func(t *testing.T) {
		p := openShowcase(t, a)
		q := p.ask("profile", "form")
		p.must(q.GetByTestId("field-age").Fill("200"))
		p.must(q.GetByTestId("elicit-submit").Click())
		p.must(expect.Locator(q.GetByTestId("error-name")).ToHaveText("Name is required"))
		p.must(expect.Locator(q.GetByTestId("error-age")).ToHaveText("Age must be at most 130"))
		p.must(expect.Locator(q.GetByTestId("field-diet")).ToHaveValue("anything")) // the default

		p.must(q.GetByTestId("field-name").Fill("Ann <i>Lee</i>"))
		p.must(q.GetByTestId("field-age").Fill("30"))
		p.must(q.GetByTestId("field-height").Fill("1.7"))
		_, err := q.GetByTestId("field-diet").SelectOption(playwright.SelectOptionValues{Values: &[]string{"vegan"}})
		p.must(err)
		p.must(q.GetByTestId("field-interests-art").Check())
		p.must(q.GetByTestId("field-interests-music").Check())
		p.must(q.GetByTestId("field-newsletter-yes").Check())
		p.must(q.GetByTestId("field-about").Fill("Line one\nLine two"))
		p.must(q.GetByTestId("elicit-submit").Click())
		p.replied("Saved: Ann <i>Lee</i>, 30, eats vegan, likes art, music, newsletter true.")
		p.must(expect.Locator(p.lastAnswered().GetByTestId("elicit-answer")).ToContainText("Line one\nLine two"))

		p.must(p.ask("profile", "form").GetByTestId("elicit-decline").Click())
		p.replied("You declined — no profile saved.")
	})

	run("queue of two agents", func(t *testing.T) {
		p := openShowcase(t, a)
		p.send("together")
		p.must(expect.Locator(p.active()).ToHaveCount(1))
		p.must(expect.Locator(p.queued()).ToHaveCount(1))
		asks := map[string]string{"form": "packer", "choice": "diner"}
		first, err := p.active().GetAttribute("data-kind")
		p.must(err)
		second := map[string]string{"form": "choice", "choice": "form"}[first]
		if second == "" {
			t.Fatalf("the first question is a %q, want a form or a choice", first)
		}
		p.must(expect.Locator(p.active()).ToContainText(asks[first] + " asks"))
		queuedLine := regexp.MustCompile(`^Queued \(2 of 2\) — ` + asks[second] + ` asks: (How much luggage are you bringing\?|Which meal would you like on board\?)$`)
		p.must(expect.Locator(p.queued().GetByTestId("elicit-queued")).ToHaveText(queuedLine))
		p.must(expect.Locator(p.queued().Locator("input, select, textarea, button")).ToHaveCount(0))

		// A refused answer to the first leaves the queue as it was.
		if first == "form" {
			p.must(p.active().GetByTestId("field-bags").Fill("9"))
		}
		p.must(p.active().GetByTestId("elicit-submit").Click())
		p.must(expect.Locator(p.active().GetByTestId("form-error")).ToBeVisible())
		p.must(expect.Locator(p.queued().GetByTestId("elicit-queued")).ToHaveText(queuedLine))

		answer := func(kind string) {
			q := p.active()
			p.must(expect.Locator(q).ToHaveAttribute("data-kind", kind))
			if kind == "form" {
				p.must(q.GetByTestId("field-bags").Fill("2"))
				p.must(q.GetByTestId("field-skis-yes").Check())
			} else {
				p.must(q.GetByTestId("choice-curry").Check())
			}
			p.must(q.GetByTestId("elicit-submit").Click())
		}
		answer(first)
		// The second comes forward, whole, and nothing waits behind it.
		p.must(expect.Locator(p.queued()).ToHaveCount(0))
		p.must(expect.Locator(p.active()).ToContainText(asks[second] + " asks"))
		p.must(expect.Locator(p.active().GetByTestId("elicit-queue-place")).ToHaveCount(0))
		answer(second)
		p.replied("All set: 2 checked bag(s) and skis; curry for the meal.")
	})

	run("queue: decline one, stop withdraws the rest", func(t *testing.T) {
		p := openShowcase(t, a)
		p.send("together")
		p.must(expect.Locator(p.queued()).ToHaveCount(1))
		p.must(p.active().GetByTestId("elicit-decline").Click())
		p.must(expect.Locator(p.lastAnswered().GetByTestId("elicit-answer")).ToHaveText("You declined."))
		p.must(expect.Locator(p.queued()).ToHaveCount(0))
		p.must(expect.Locator(p.active()).ToHaveCount(1))

		// Stopping the turn withdraws what it still asks.
		p.must(p.GetByTestId("stop").Click())
		p.must(expect.Locator(p.GetByTestId("turn-stopped")).ToBeVisible())
		p.must(expect.Locator(p.Locator("[data-testid=elicit][data-state=pending]")).ToHaveCount(0))

		p.send("together")
		p.must(expect.Locator(p.queued()).ToHaveCount(1))
		p.must(p.GetByTestId("stop").Click())
		p.must(expect.Locator(p.Locator("[data-testid=elicit][data-state=pending]")).ToHaveCount(0))
		if html, _ := p.Locator("#messages").InnerHTML(); strings.Contains(html, "Queued (") {
			t.Errorf("a withdrawn question is still shown as queued")
		}
	})
}
