package e2e

import (
	"testing"

	"github.com/sweatpants-go/sweatpants/llm/llmtest"
)

// Stop during a side question's streamed reply keeps what had streamed, in
// the side question's place and marked as stopped, after a reload too.
func TestStopKeepsASideRepliesPartialText(t *testing.T) {
	t.Parallel()
	model := llmtest.NewServer(t, llmtest.Text("Hello."), llmtest.Reply{Chunks: []string{"Once upon a **time**, "}, Hold: true})
	a := startApp(t, "SWEATPANTS_PROVIDER=openai", "OPENAI_API_KEY=test", "OPENAI_BASE_URL="+model.URL)
	p := openAgent(t, a, "assistant")
	p.send("hi")
	p.must(expect.Locator(p.lastAssistant()).ToHaveText("Hello."))
	reply := p.GetByTestId("reply-turn").Last()
	p.must(reply.GetByTestId("ask-aside").Click())
	p.must(reply.GetByTestId("aside-input").Fill("Tell me a story"))
	p.must(reply.GetByTestId("aside-send").Click())
	side := p.GetByTestId("side-quest")
	p.must(expect.Locator(side.GetByTestId("side-draft")).ToContainText("Once upon a time"))
	p.must(p.GetByTestId("stop").Click())

	for range 2 { // as the stop is shown, then from the record after a reload
		p.must(expect.Locator(side.GetByTestId("side-reply")).ToHaveText("Stopped."))
		partial := side.GetByTestId("stopped-partial")
		p.must(expect.Locator(partial).ToHaveText("Once upon a time,"))
		p.must(expect.Locator(partial.Locator("strong")).ToHaveText("time"))
		p.must(expect.Locator(side.GetByTestId("side-draft")).ToHaveCount(0))
		_, err := p.Reload()
		p.must(err)
		p.waitForStream()
	}
	checkAccessible(t, p.Page, "a stopped side reply")
}

// Change answer on a side question's answered card asks the side question
// again from the new answer: its reply follows it, the flow's form still
// waits and works, and no notice says the question was not found.
func TestChangeAnswerOnASideQuestionsCard(t *testing.T) {
	t.Parallel()
	a := startApp(t)
	p := openAgent(t, a, "assistant")
	p.send("Plan a trip to Rome")
	p.must(expect.Locator(p.pendingForm()).ToBeVisible())
	p.send("Ask me which meal I want on board")
	side := p.GetByTestId("side-quest")
	card := side.Locator(`[data-testid=elicit][data-kind=choice]`)
	p.must(card.GetByTestId("choice-curry").Check())
	p.must(card.GetByTestId("elicit-submit").Click())
	p.must(expect.Locator(side.GetByTestId("side-reply")).ToContainText("curry"))

	p.must(card.GetByTestId("change-answer").Click())
	form := card.GetByTestId("change-form")
	p.must(expect.Locator(form.GetByTestId("choice-curry")).ToBeChecked())
	p.must(form.GetByTestId("choice-salad").Check())
	p.must(form.GetByTestId("elicit-submit").Click())
	p.must(expect.Locator(side.GetByTestId("side-reply")).ToContainText("salad"))
	p.must(expect.Locator(side.GetByTestId("side-reply")).Not().ToContainText("curry"))
	p.must(expect.Locator(form).ToBeHidden())
	p.must(expect.Locator(p.GetByTestId("notice")).Not().ToContainText("no answered question"))
	p.must(expect.Locator(side).ToHaveCount(1))

	// After a reload the new version is the one shown; the flow's form
	// waited where it was, and works.
	_, err := p.Reload()
	p.must(err)
	p.waitForStream()
	p.must(expect.Locator(side.GetByTestId("side-reply")).ToContainText("salad"))
	p.fillTrip("Rome", "2", "economy", false)
	p.must(p.pendingForm().GetByTestId("elicit-submit").Click())
	p.must(expect.Locator(p.lastAssistant()).ToContainText("Rome"))
	p.must(expect.Locator(p.GetByTestId("side-reply")).ToContainText("salad"))
}
