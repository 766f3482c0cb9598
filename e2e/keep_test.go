package e2e

import (
	"fmt"
	"testing"

	"github.com/playwright-community/playwright-go"

	"github.com/sweatpants-go/sweatpants/llm/llmtest"
)

// Stop keeps the reply streamed so far, marked as stopped, and it is still
// there after a reload.
func TestStopKeepsThePartialReply(t *testing.T) {
	t.Parallel()
	model := llmtest.NewServer(t, llmtest.Reply{Chunks: []string{"Once upon a **time**, "}, Hold: true})
	a := startApp(t, "SWEATPANTS_PROVIDER=openai", "OPENAI_API_KEY=test", "OPENAI_BASE_URL="+model.URL)
	p := openAgent(t, a, "assistant")
	p.send("Tell me a long story")
	p.must(expect.Locator(p.GetByTestId("draft")).ToContainText("Once upon a time"))
	p.must(p.GetByTestId("stop").Click())

	for range 2 { // as the stop is shown, then from the record after a reload
		p.must(expect.Locator(p.GetByTestId("turn-stopped")).ToHaveText("Stopped."))
		partial := p.GetByTestId("stopped-partial")
		p.must(expect.Locator(partial).ToHaveText("Once upon a time,"))
		p.must(expect.Locator(partial.Locator("strong")).ToHaveText("time"))
		p.must(expect.Locator(p.GetByTestId("assistant-message")).ToHaveCount(0))
		p.must(expect.Locator(p.GetByTestId("draft")).ToHaveCount(0))
		_, err := p.Reload()
		p.must(err)
		p.waitForStream()
	}
}

// A reply interrupted by a new message keeps its partial text too.
func TestAnInterruptedReplyKeepsItsPartialText(t *testing.T) {
	t.Parallel()
	model := llmtest.NewServer(t, llmtest.Reply{Chunks: []string{"Once upon a time, "}, Hold: true}, llmtest.Text("Four."))
	a := startApp(t, "SWEATPANTS_PROVIDER=openai", "OPENAI_API_KEY=test", "OPENAI_BASE_URL="+model.URL)
	p := openAgent(t, a, "assistant")
	p.send("Tell me a long story")
	p.must(expect.Locator(p.GetByTestId("draft")).ToContainText("Once upon a time"))
	p.send("Never mind. What is 2+2?")
	p.must(expect.Locator(p.GetByTestId("turn-stopped")).ToHaveText("Stopped: you sent a new message."))
	p.must(expect.Locator(p.GetByTestId("stopped-partial")).ToHaveText("Once upon a time,"))
	p.must(expect.Locator(p.lastAssistant()).ToHaveText("Four."))
}

// Stop keeps the question card, marked withdrawn, with no way to answer it,
// before and after a reload.
func TestStopKeepsTheQuestionWithdrawn(t *testing.T) {
	t.Parallel()
	a := startApp(t)
	p := openChat(t, a)
	p.send("Plan a trip")
	p.must(expect.Locator(p.pendingForm()).ToBeVisible())
	p.must(p.GetByTestId("stop").Click())

	for range 2 {
		p.must(expect.Locator(p.GetByTestId("turn-stopped")).ToHaveText("Stopped."))
		card := p.Locator(`[data-testid=elicit][data-state=interrupted]`)
		p.must(expect.Locator(card).ToHaveCount(1))
		p.must(expect.Locator(card).ToContainText("Let's plan your trip"))
		p.must(expect.Locator(card.GetByTestId("elicit-withdrawn")).ToHaveText("withdrawn"))
		p.must(expect.Locator(card.Locator("button, input, select, textarea, form")).ToHaveCount(0))
		p.must(expect.Locator(p.pendingForm()).ToHaveCount(0))
		_, err := p.Reload()
		p.must(err)
		p.waitForStream()
	}
}

// A double click on Submit sends the answer once: the trip is planned once
// and no alert says the question was already answered.
func TestADoubleClickOnSubmitAnswersOnce(t *testing.T) {
	t.Parallel()
	a := startApp(t)
	p := openChat(t, a)
	// The answers the page posts, counted as they start, and the requests
	// of the page in flight (a form's element may be gone from the page by
	// the time its request ends, so those are not told apart).
	p.must(p.AddInitScript(playwright.Script{Content: playwright.String(`
		window.answers = {started: 0, inflight: 0}
		document.addEventListener('datastar-fetch', (evt) => {
			const {type, el} = evt.detail || {}
			if (el?.id === 'stream') return
			if (type === 'started') {
				window.answers.inflight++
				if (el?.closest?.('[data-testid=elicit]')) window.answers.started++
			}
			if (type === 'finished') window.answers.inflight--
		})`)}))
	p.send("Plan a trip")
	p.must(expect.Locator(p.pendingForm()).ToBeVisible())
	p.fillTrip("Vienna", "2", "economy", false)
	p.must(p.pendingForm().GetByTestId("elicit-submit").Dblclick())

	p.must(expect.Locator(p.lastAssistant()).ToContainText("Your trip to Vienna is planned"))
	_, err := p.WaitForFunction(`() => window.answers.started > 0 && window.answers.inflight === 0`, nil)
	if err != nil {
		n, _ := p.Evaluate(`() => window.answers`)
		t.Fatalf("answers posted and finished: %v: %v", n, err)
	}
	n, err := p.Evaluate(`() => window.answers.started`)
	p.must(err)
	if fmt.Sprint(n) != "1" {
		t.Errorf("the double click posted %v answers, want 1", n)
	}
	p.must(expect.Locator(p.GetByTestId("assistant-message")).ToHaveCount(1))
	p.must(expect.Locator(p.GetByTestId("notice")).Not().ToContainText("already answered"))
}

// The page sending the answer just recorded again (a resend after a lost
// response) is told it went through; a different answer is still refused.
func TestAResendOfTheSameAnswerIsNotAConflict(t *testing.T) {
	t.Parallel()
	a := startApp(t)
	p := openChat(t, a)
	p.send("Plan a trip")
	p.must(expect.Locator(p.pendingForm()).ToBeVisible())
	path := p.answerPath(p.pendingForm())
	same := `{"action":"accept","content":{"destination":"Oslo","travellers":2,"cabin":"economy","hotel":false}}`
	v, err := p.Evaluate(`async ([path, a, b]) => {
		const post = body => fetch(path, {method: 'POST', headers: {'Content-Type': 'application/json'}, body}).then(r => r.status)
		return [await post(a), await post(a), await post(b)]
	}`, []string{path, same, `{"action":"accept","content":{"destination":"Lima","travellers":3,"cabin":"business","hotel":true}}`})
	p.must(err)
	if got := fmt.Sprint(v); got != "[204 204 409]" {
		t.Fatalf("statuses of an answer, the same again and another: %s, want [204 204 409]", got)
	}
	p.must(expect.Locator(p.lastAssistant()).ToContainText("Your trip to Oslo is planned"))
	p.must(expect.Locator(p.GetByTestId("assistant-message")).ToHaveCount(1))
}

// A form answered in words comes back filled in from the words, and
// submitting it plans that trip.
func TestAFormAnsweredInWordsComesBackFilledIn(t *testing.T) {
	t.Parallel()
	a := startApp(t)
	p := openChat(t, a)
	p.send("Plan a trip to Porto")
	p.must(expect.Locator(p.pendingForm()).ToBeVisible())
	first, err := p.pendingForm().GetAttribute("data-elicit-id")
	p.must(err)
	p.send("make it 3 travellers, business class")

	form := p.pendingForm()
	p.must(expect.Locator(form).Not().ToHaveAttribute("data-elicit-id", first))
	p.must(expect.Locator(form).ToContainText("make it 3 travellers"))
	p.must(expect.Locator(form.GetByTestId("field-destination")).ToHaveValue("Porto"))
	p.must(expect.Locator(form.GetByTestId("field-travellers")).ToHaveValue("3"))
	p.must(expect.Locator(form.GetByTestId("field-cabin")).ToHaveValue("business"))
	// The words said nothing of a hotel, so the form does not answer it
	// for the user: yes and no wait to be picked.
	p.must(expect.Locator(form.GetByTestId("field-hotel-yes")).Not().ToBeChecked())
	p.must(expect.Locator(form.GetByTestId("field-hotel-no")).Not().ToBeChecked())
	p.must(form.GetByTestId("field-hotel-no").Check())
	p.must(form.GetByTestId("elicit-submit").Click())
	p.must(expect.Locator(p.lastAssistant()).ToContainText("Your trip to Porto is planned: 3 travellers in business class"))
}
