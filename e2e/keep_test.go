package e2e

import (
	"testing"

	"github.com/sweatpants-go/sweatpants/backend/llm/llmtest"
)

// Stop keeps the reply streamed so far, marked as stopped, and it is still
// there after a reload.
func TestStopKeepsThePartialReply(t *testing.T) {
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
		p.must(expect.Locator(p.GetByTestId("stopped-mark")).ToHaveText("stopped"))
		p.must(expect.Locator(p.GetByTestId("assistant-message")).ToHaveCount(0))
		p.must(expect.Locator(p.GetByTestId("draft")).ToHaveCount(0))
		_, err := p.Reload()
		p.must(err)
		p.waitForStream()
	}
}

// A reply interrupted by a new message keeps its partial text too.
func TestAnInterruptedReplyKeepsItsPartialText(t *testing.T) {
	model := llmtest.NewServer(t, llmtest.Reply{Chunks: []string{"Once upon a time, "}, Hold: true}, llmtest.Text("Four."))
	a := startApp(t, "SWEATPANTS_PROVIDER=openai", "OPENAI_API_KEY=test", "OPENAI_BASE_URL="+model.URL)
	p := openAgent(t, a, "assistant")
	p.send("Tell me a long story")
	p.must(expect.Locator(p.GetByTestId("draft")).ToContainText("Once upon a time"))
	p.send("Never mind. What is 2+2?")
	p.must(expect.Locator(p.GetByTestId("turn-stopped")).ToHaveText("Stopped: you sent a new message."))
	p.must(expect.Locator(p.GetByTestId("stopped-partial")).ToHaveText("Once upon a time,"))
	p.must(expect.Locator(p.GetByTestId("stopped-mark")).ToHaveText("stopped"))
	p.must(expect.Locator(p.lastAssistant()).ToHaveText("Four."))
}

// Stop keeps the question card, marked withdrawn, with no way to answer it,
// before and after a reload.
func TestStopKeepsTheQuestionWithdrawn(t *testing.T) {
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
