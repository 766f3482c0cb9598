package e2e

import (
	"testing"

	"github.com/sweatpants-go/sweatpants/backend/llm/llmtest"
)

// A side question is a turn of the agent: the weather tool answers it, a
// follow-up is answered from the thread (typed in the composer, then with
// Follow up), and the trip form still works after them.
func TestASideQuestionIsAnsweredByAToolAndFollowedUp(t *testing.T) {
	a := startApp(t)
	p := openChat(t, a)
	p.send("Plan a trip")
	p.must(expect.Locator(p.pendingForm()).ToBeVisible())

	p.send("What's the weather in Tokyo?")
	p.must(expect.Locator(p.GetByTestId("notice")).ToHaveText("Asked on the side — the question above still waits for you."))
	sides := p.GetByTestId("side-quest")
	p.must(expect.Locator(sides.First().GetByTestId("side-reply")).ToContainText("Tokyo today: light rain"))

	p.send("And in Osaka?")
	p.must(expect.Locator(sides).ToHaveCount(2))
	p.must(expect.Locator(sides.Nth(1).GetByTestId("side-reply")).ToContainText("Osaka today: cloudy"))

	// Follow up, from the side exchange itself.
	p.must(sides.Nth(1).GetByTestId("ask-aside").Click())
	p.must(sides.Nth(1).GetByTestId("aside-input").Fill("What about Oslo?"))
	p.must(sides.Nth(1).GetByTestId("aside-send").Click())
	p.must(expect.Locator(sides).ToHaveCount(3))
	p.must(expect.Locator(sides.Nth(2).GetByTestId("side-reply")).ToContainText("Oslo today: snow showers"))

	// The flow waited where it was.
	p.fillTrip("Tokyo", "2", "economy", false)
	p.must(p.pendingForm().GetByTestId("elicit-submit").Click())
	p.must(expect.Locator(p.lastAssistant()).ToContainText("Your trip to Tokyo is planned"))
	p.must(expect.Locator(sides).ToHaveCount(3))

	// The inspector shows what each typed message was taken for.
	ins := &chatPage{t: t, Page: newPageIn(t, p.Context())}
	_, err := ins.Goto(p.URL() + "/tree")
	ins.must(err)
	ins.waitForStream()
	decisions := ins.Locator(`[data-testid=tree-node][data-kind=decision]`)
	ins.must(expect.Locator(decisions).ToHaveCount(2))
	ins.must(expect.Locator(decisions.First().Locator("summary").First()).ToContainText("“What's the weather in Tokyo?” taken as a side question, by the rule"))
}

// A side thread beside a reply: asked with Ask aside, answered in place,
// while the conversation stays where it was.
func TestAThreadBesideAReply(t *testing.T) {
	a := startApp(t)
	p := openAgent(t, a, "assistant")
	p.send("What's the weather in Paris?")
	p.must(expect.Locator(p.lastAssistant()).ToContainText("Paris"))
	reply := p.GetByTestId("reply-turn").Last()
	p.must(reply.GetByTestId("ask-aside").Click())
	p.must(reply.GetByTestId("aside-input").Fill("And in Lisbon?"))
	p.must(reply.GetByTestId("aside-send").Click())
	side := p.GetByTestId("side-quest")
	p.must(expect.Locator(side.GetByTestId("side-reply")).ToContainText("Lisbon"))
	p.must(expect.Locator(side).ToContainText("a thread beside the conversation"))
	// The conversation goes on from its last reply, not from the thread.
	p.send("Thanks!")
	p.must(expect.Locator(p.GetByTestId("user-message")).ToHaveCount(2))
	p.must(expect.Locator(p.GetByTestId("side-quest")).ToHaveCount(1))
}

// A message sent while the reply streams stops it, says so, and starts a
// turn with the new message.
func TestAMessageSentMidReplyInterruptsIt(t *testing.T) {
	model := llmtest.NewServer(t, llmtest.Reply{Chunks: []string{"Once upon a time, "}, Hold: true}, llmtest.Text("Four."))
	a := startApp(t, "SWEATPANTS_PROVIDER=openai", "OPENAI_API_KEY=test", "OPENAI_BASE_URL="+model.URL)
	p := openAgent(t, a, "assistant")
	p.send("Tell me a long story")
	p.must(expect.Locator(p.GetByTestId("draft")).ToContainText("Once upon a time"))
	p.send("Never mind. What is 2+2?")
	p.must(expect.Locator(p.GetByTestId("notice")).ToHaveText("Sent — it interrupted the reply."))
	p.must(expect.Locator(p.GetByTestId("turn-stopped")).ToHaveText("Stopped: you sent a new message."))
	p.must(expect.Locator(p.lastAssistant()).ToHaveText("Four."))
	p.must(expect.Locator(p.GetByTestId("user-message")).ToHaveText([]string{"Tell me a long story", "Never mind. What is 2+2?"}))
}
