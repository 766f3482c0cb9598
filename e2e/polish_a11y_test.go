package e2e

import (
	"testing"

	"github.com/sweatpants-go/sweatpants/llm/llmtest"
)

// axe-core finds nothing serious on a conversation's page while a reply
// streams, light and dark.
func TestAStreamingReplyPassesAxe(t *testing.T) {
	t.Parallel()
	model := llmtest.NewServer(t, llmtest.Reply{Chunks: []string{"Lisbon ", "is ", "sunny"}, Hold: true})
	a := startApp(t, "SWEATPANTS_PROVIDER=openai", "OPENAI_API_KEY=test", "OPENAI_BASE_URL="+model.URL)
	p := openAgent(t, a, "assistant")
	p.send("What is the weather in Lisbon?")
	p.must(expect.Locator(p.GetByTestId("draft")).ToContainText("Lisbon is sunny"))
	p.checkBothThemes("a reply streaming")
}

// So it does with a side question open under a reply, being written, then
// answered.
func TestASideQuestionPassesAxe(t *testing.T) {
	t.Parallel()
	a := startApp(t)
	p := openAgent(t, a, "assistant")
	p.send("What's the weather in Paris?")
	p.must(expect.Locator(p.lastAssistant()).ToContainText("Paris"))
	reply := p.GetByTestId("reply-turn").Last()
	p.must(reply.GetByTestId("ask-aside").Click())
	p.must(expect.Locator(reply.GetByTestId("aside-input")).ToBeVisible())
	p.checkBothThemes("a side question being written")
	p.must(reply.GetByTestId("aside-input").Fill("And in Lisbon?"))
	p.must(reply.GetByTestId("aside-send").Click())
	p.must(expect.Locator(p.GetByTestId("side-quest").GetByTestId("side-reply")).ToContainText("Lisbon"))
	p.checkBothThemes("a side question answered")
}

// checkBothThemes runs the accessibility check on the whole page, light,
// then dark, and leaves it light.
func (p *chatPage) checkBothThemes(what string) {
	p.t.Helper()
	for _, theme := range []string{"light", "dark"} {
		p.setTheme(theme)
		checkAccessible(p.t, p.Page, what+" ("+theme+")")
	}
	p.setTheme("light")
}
