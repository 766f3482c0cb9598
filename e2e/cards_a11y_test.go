package e2e

import (
	"regexp"
	"testing"
)

// Every kind of card passes the accessibility engine — open, after a
// refused answer, answered and withdrawn — light and dark, and what there
// is to press in it is big enough to hit.
func TestCardsAreAccessible(t *testing.T) {
	t.Parallel()
	a := startApp(t)
	eachCardKind(t, func(t *testing.T, k cardKind) {
		p, q := k.open(t, a)
		p.checkCards(k.name + " card, open")
		p.tapTargetsFit(k.name + " card, open")
		if k.refuse != nil {
			k.refuse(p, q)
			p.checkCards(k.name + " card, after an error")
		}
		k.answer(p, q)
		p.must(expect.Locator(p.lastAnswered()).ToBeVisible())
		p.checkCards(k.name + " card, answered")
		p.tapTargetsFit(k.name + " card, answered")

		p, _ = k.withdrawn(t, a)
		p.checkCards(k.name + " card, withdrawn")
	})
}

// A form says which fields must be given and which may be left out; a
// refused answer marks the fields to fix, each described by its problem,
// and puts focus on the first of them.
func TestFormFieldsSayWhatTheyNeed(t *testing.T) {
	t.Parallel()
	a := startApp(t)
	p := openShowcase(t, a)
	q := p.ask("profile", "form")
	name, age, height := q.GetByTestId("field-name"), q.GetByTestId("field-age"), q.GetByTestId("field-height")
	p.must(expect.Locator(q.Locator("[data-field=name] label")).ToHaveText("Name (required)"))
	p.must(expect.Locator(name).ToHaveAttribute("required", ""))
	p.must(expect.Locator(q.Locator("[data-field=height] label")).ToHaveText("Height (m) (optional)"))
	p.must(expect.Locator(height).Not().ToHaveAttribute("required", regexp.MustCompile(".*")))
	p.must(expect.Locator(name).Not().ToHaveAttribute("aria-invalid", regexp.MustCompile(".*")))

	p.must(age.Fill("200"))
	p.must(q.GetByTestId("elicit-submit").Click())
	p.must(expect.Locator(name).ToHaveAttribute("aria-invalid", "true"))
	p.must(expect.Locator(name).ToHaveAccessibleDescription("Name is required"))
	p.must(expect.Locator(age).ToHaveAttribute("aria-invalid", "true"))
	p.must(expect.Locator(age).ToHaveAccessibleDescription("Age must be at most 130"))
	p.must(expect.Locator(name).ToBeFocused())

	// Fixed, the name is no longer marked; the age still is, and focus goes
	// there.
	p.must(name.Fill("Ann"))
	p.must(q.GetByTestId("elicit-submit").Click())
	p.must(expect.Locator(age).ToBeFocused())
	p.must(expect.Locator(name).Not().ToHaveAttribute("aria-invalid", regexp.MustCompile(".*")))
	p.must(expect.Locator(age).ToHaveAttribute("aria-invalid", "true"))
}

// A yes/no the user already answered in words is a switch set to it, not
// two radio buttons with neither picked; without a default it stays a
// choice to make.
func TestABooleanWithADefaultIsASwitch(t *testing.T) {
	t.Parallel()
	a := startApp(t)
	p := openChat(t, a)
	p.send("Plan a trip to Porto")
	form := p.pendingForm()
	p.must(expect.Locator(form.GetByTestId("field-hotel-yes")).ToHaveAttribute("type", "radio"))
	first, err := form.GetAttribute("data-elicit-id")
	p.must(err)

	p.send("make it 2 travellers, with a hotel")
	p.must(expect.Locator(form).Not().ToHaveAttribute("data-elicit-id", first))
	hotel := form.GetByTestId("field-hotel")
	p.must(expect.Locator(hotel).ToHaveRole("switch"))
	p.must(expect.Locator(hotel).ToHaveAccessibleName("Book a hotel too?"))
	p.must(expect.Locator(hotel).ToBeChecked())
	p.must(expect.Locator(form.GetByTestId("field-hotel-yes")).ToHaveCount(0))

	// Switched off, it sends no.
	p.must(hotel.Uncheck())
	p.must(form.GetByTestId("elicit-submit").Click())
	p.must(expect.Locator(p.lastAssistant()).ToContainText("Your trip to Porto is planned: 2 travellers in economy class, flights only, no hotel."))
}

// Decline and Cancel each say what they do, and what cannot be undone is
// never the primary button; nor is a no, a decline or a cancel. A card
// whose own answers say no (an approval's Deny) has neither: a question
// closed unanswered would only be a no that says less.
func TestDeclineAndCancelAreExplained(t *testing.T) {
	t.Parallel()
	a := startApp(t)
	eachCardKind(t, func(t *testing.T, k cardKind) {
		p, q := k.open(t, a)
		if k.ownNo {
			p.must(expect.Locator(q.GetByTestId("elicit-decline")).ToHaveCount(0))
			p.must(expect.Locator(q.GetByTestId("elicit-cancel")).ToHaveCount(0))
			p.must(expect.Locator(q.Locator(".primary")).ToHaveCount(0)) // archiving changes data
			return
		}
		p.must(expect.Locator(q.GetByTestId("elicit-decline")).ToHaveAccessibleDescription("Decline: say no; the agent goes on without it."))
		p.must(expect.Locator(q.GetByTestId("elicit-cancel")).ToHaveAccessibleDescription("Cancel: close this question without answering."))
		p.must(expect.Locator(q.GetByTestId("dismiss-help")).ToBeVisible())
		primary := regexp.MustCompile(`\bprimary\b`)
		for _, id := range []string{"elicit-decline", "elicit-cancel", "elicit-no", "elicit-deny"} {
			p.must(expect.Locator(q.Locator(`[data-testid=` + id + `].primary`)).ToHaveCount(0))
		}
		if k.kind == "confirm" { // deleting the drafts cannot be undone
			p.must(expect.Locator(q.GetByTestId("elicit-yes")).ToHaveText("Delete them"))
			p.must(expect.Locator(q.GetByTestId("elicit-yes")).Not().ToHaveClass(primary))
		}
	})
}
