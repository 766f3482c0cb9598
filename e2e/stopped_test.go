package e2e

import (
	"testing"

	"github.com/playwright-community/playwright-go"

	"github.com/sweatpants-go/sweatpants/llm/llmtest"
)

// A reply stopped as it streamed keeps what it had written, marked stopped
// once: no second bubble that reads as another message. So does a side
// answer stopped as it streamed.
func TestAStoppedReplyIsMarkedOnce(t *testing.T) {
	t.Parallel()
	model := llmtest.NewServer(t, llmtest.Reply{Chunks: []string{"Once upon a **time**, "}, Hold: true},
		llmtest.Text("Hello."), llmtest.Reply{Chunks: []string{"A shorter one: "}, Hold: true})
	a := startApp(t, "SWEATPANTS_PROVIDER=openai", "OPENAI_API_KEY=test", "OPENAI_BASE_URL="+model.URL)
	p := openAgent(t, a, "assistant")
	p.send("Tell me a long story")
	p.must(expect.Locator(p.GetByTestId("draft")).ToContainText("Once upon a time"))
	p.must(p.GetByTestId("stop").Click())
	stopped := p.GetByTestId("reply-turn").Filter(playwright.LocatorFilterOptions{Has: p.GetByTestId("stopped-partial")})
	p.must(expect.Locator(stopped.GetByTestId("turn-stopped")).ToHaveText("Stopped."))
	p.markedStoppedOnce("the stopped reply", stopped, "Once upon a time,")

	p.send("Never mind, say hello")
	p.must(expect.Locator(p.lastAssistant()).ToHaveText("Hello."))
	reply := p.GetByTestId("reply-turn").Last()
	p.must(reply.GetByTestId("ask-aside").Click())
	p.must(reply.GetByTestId("aside-input").Fill("Tell me a shorter story"))
	p.must(reply.GetByTestId("aside-send").Click())
	side := p.GetByTestId("side-quest")
	p.must(expect.Locator(side.GetByTestId("side-draft")).ToContainText("A shorter one"))
	p.must(p.GetByTestId("stop").Click())
	p.must(expect.Locator(side.GetByTestId("side-reply")).ToHaveText("Stopped."))
	p.markedStoppedOnce("the stopped side answer", side, "A shorter one:")

	_, err := p.Reload()
	p.must(err)
	p.waitForStream()
	p.markedStoppedOnce("the stopped reply, after a reload", stopped, "Once upon a time,")
	p.markedStoppedOnce("the stopped side answer, after a reload", side, "A shorter one:")
	p.checkBothThemes("a stopped reply and side answer")
}

// markedStoppedOnce fails the test unless turn shows partial, the text
// streamed before the stop, as the agent's one bubble, and says "stopped"
// once, where it can be seen.
func (p *chatPage) markedStoppedOnce(what string, turn playwright.Locator, partial string) {
	p.t.Helper()
	p.must(expect.Locator(turn.GetByTestId("stopped-partial")).ToHaveText(partial))
	counts, err := turn.Evaluate(`turn => {
		const seen = (el) => el.checkVisibility() && !el.closest('.visually-hidden')
		let words = 0
		const texts = document.createTreeWalker(turn, NodeFilter.SHOW_TEXT)
		for (let t; (t = texts.nextNode());) {
			if (seen(t.parentElement)) words += (t.textContent.match(/\bstopped\b/gi) || []).length
		}
		const bubbles = [...turn.querySelectorAll('.msg:not(.user)')].filter(seen).length
		return {words, bubbles}
	}`, nil)
	p.must(err)
	c := counts.(map[string]any)
	if c["words"] != 1 || c["bubbles"] != 1 {
		html, _ := turn.InnerHTML()
		p.t.Errorf("%s: %v times the word stopped and %v bubbles of the agent's, want once and one:\n%s", what, c["words"], c["bubbles"], html)
	}
}

// While a side answer streams, Stop says that it stops the side answer,
// which is all it stops; while the conversation's own reply streams it is
// Stop.
func TestStopSaysWhatItStops(t *testing.T) {
	t.Parallel()
	model := llmtest.NewServer(t, llmtest.Text("Hello."), llmtest.Reply{Chunks: []string{"Once upon a time, "}, Hold: true},
		llmtest.Reply{Chunks: []string{"Long ago, "}, Hold: true})
	a := startApp(t, "SWEATPANTS_PROVIDER=openai", "OPENAI_API_KEY=test", "OPENAI_BASE_URL="+model.URL)
	p := openAgent(t, a, "assistant")
	p.send("hi")
	p.must(expect.Locator(p.lastAssistant()).ToHaveText("Hello."))
	reply := p.GetByTestId("reply-turn").Last()
	p.must(reply.GetByTestId("ask-aside").Click())
	p.must(reply.GetByTestId("aside-input").Fill("Tell me a story"))
	p.must(reply.GetByTestId("aside-send").Click())
	p.must(expect.Locator(p.GetByTestId("side-draft")).ToContainText("Once upon a time"))
	stop := p.GetByTestId("stop")
	p.must(expect.Locator(stop).ToHaveText("Stop the side answer"))
	p.must(expect.Locator(stop).ToHaveAccessibleName("Stop the side answer"))
	p.must(stop.Click())
	p.must(expect.Locator(p.GetByTestId("side-reply")).ToHaveText("Stopped."))
	p.must(expect.Locator(stop).ToHaveCount(0))

	p.send("Tell me another story")
	p.must(expect.Locator(p.GetByTestId("draft")).ToContainText("Long ago"))
	p.must(expect.Locator(stop).ToHaveText("Stop"))
	p.must(expect.Locator(stop).ToHaveAccessibleName("Stop"))
	p.checkBothThemes("a reply streaming, after a side answer was stopped")
}
