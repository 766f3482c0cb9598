package e2e

import (
	"strings"
	"testing"
	"time"

	"github.com/playwright-community/playwright-go"

	"github.com/sweatpants-go/sweatpants/llm/llmtest"
)

// A side question is a turn of the agent: the weather tool answers it, a
// follow-up is answered from the thread (typed in the composer, then with
// Follow up), and the trip form still works after them.
func TestASideQuestionIsAnsweredByAToolAndFollowedUp(t *testing.T) {
	t.Parallel()
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
	t.Parallel()
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
	t.Parallel()
	// The second reply waits until the notice of the interruption was
	// seen (it goes when the reply is in).
	model := llmtest.NewServer(t, llmtest.Reply{Chunks: []string{"Once upon a time, "}, Hold: true},
		llmtest.Reply{Chunks: []string{"Fo", "ur."}})
	gate := newModelGate(t, model)
	a := startApp(t, "SWEATPANTS_PROVIDER=openai", "OPENAI_API_KEY=test", "OPENAI_BASE_URL="+gate.URL)
	p := openAgent(t, a, "assistant")
	// The badge names the model, not just "openai".
	p.must(expect.Locator(p.GetByTestId("model-badge")).ToHaveText("gpt-4o-mini"))
	p.send("Tell me a long story")
	gate.allow(1)
	p.must(expect.Locator(p.GetByTestId("draft")).ToContainText("Once upon a time"))
	p.send("Never mind. What is 2+2?")
	p.must(expect.Locator(p.GetByTestId("notice")).ToHaveText("Sent — it interrupted the reply."))
	p.must(expect.Locator(p.GetByTestId("turn-stopped")).ToHaveText("Stopped: you sent a new message."))
	gate.allow(2)
	p.must(expect.Locator(p.lastAssistant()).ToHaveText("Four."))
	p.must(expect.Locator(p.GetByTestId("user-message")).ToHaveText([]string{"Tell me a long story", "Never mind. What is 2+2?"}))
}

// A streamed reply grows in place, rendered as it comes, and ends as the
// model's text rendered once: the draft gives way to the reply.
func TestAStreamedReplyGrowsAndEndsExact(t *testing.T) {
	t.Parallel()
	chunks := []string{"Here is the plan:\n\n", "| Day | City |\n", "|---|---|\n", "| 1 | Oslo |\n", "| 2 | Bergen |\n\n",
		"```go\nfmt.Println(\"hi\")\n```\n\n", "Enjoy **every** minute."}
	model := llmtest.NewServer(t, llmtest.Reply{Chunks: chunks, Gap: 250 * time.Millisecond})
	a := startApp(t, "SWEATPANTS_PROVIDER=openai", "OPENAI_API_KEY=test", "OPENAI_BASE_URL="+model.URL)
	p := openAgent(t, a, "assistant")
	// Every text the draft shows is kept, as the page shows it, on the
	// conversation's page that the first message opens.
	p.must(p.AddInitScript(playwright.Script{Content: playwright.String(`
		window.drafts = []
		addEventListener('DOMContentLoaded', () => new MutationObserver(() => {
			const d = document.querySelector('[data-testid=draft]')
			if (d && d.textContent !== window.drafts[window.drafts.length - 1]) window.drafts.push(d.textContent)
		}).observe(document.body, {subtree: true, childList: true, characterData: true}))`)}))
	p.send("Plan two days in Norway")
	reply := p.lastAssistant()
	p.must(expect.Locator(reply.Locator("table tbody tr")).ToHaveCount(2))
	p.must(expect.Locator(reply.Locator("td").Nth(3)).ToHaveText("Bergen"))
	p.must(expect.Locator(reply.Locator("pre code")).ToHaveText(`fmt.Println("hi")`))
	p.must(expect.Locator(reply.Locator("strong")).ToHaveText("every"))
	p.must(expect.Locator(p.GetByTestId("draft")).ToHaveCount(0))

	got, err := p.Evaluate(`() => window.drafts`)
	p.must(err)
	var drafts []string
	for _, d := range got.([]any) {
		drafts = append(drafts, d.(string))
	}
	if len(drafts) < 3 {
		t.Fatalf("the draft showed %d states, want it to grow chunk by chunk: %q", len(drafts), drafts)
	}
	for i := 1; i < len(drafts); i++ {
		if len(drafts[i]) < len(drafts[i-1]) {
			t.Errorf("the draft shrank from %q to %q", drafts[i-1], drafts[i])
		}
	}
	if !strings.HasPrefix(drafts[0], "Here is the plan") {
		t.Errorf("the draft began %q", drafts[0])
	}
	final, err := reply.TextContent()
	p.must(err)
	for _, want := range []string{"Here is the plan:", "DayCity1Oslo2Bergen", `fmt.Println("hi")`, "Enjoy every minute."} {
		if !strings.Contains(strings.Join(strings.Fields(final), ""), strings.Join(strings.Fields(want), "")) {
			t.Errorf("the reply %q lacks %q", final, want)
		}
	}
}

// A side question's turn asks the user in its own place, beside the
// flow's form, which still waits.
func TestASideQuestionAsksTheUser(t *testing.T) {
	t.Parallel()
	a := startApp(t)
	p := openAgent(t, a, "assistant")
	p.send("Plan a trip to Rome")
	p.must(expect.Locator(p.pendingForm()).ToBeVisible())
	p.send("Ask me which meal I want on board")
	side := p.GetByTestId("side-quest")
	card := side.Locator(`[data-testid=elicit][data-kind=choice]`)
	p.must(expect.Locator(card).ToBeVisible())
	p.must(card.GetByTestId("choice-curry").Check())
	p.must(card.GetByTestId("elicit-submit").Click())
	p.must(expect.Locator(side.GetByTestId("side-reply")).ToContainText("curry"))
	// The flow's form is where it was, and works.
	p.fillTrip("Rome", "2", "economy", false)
	p.must(p.pendingForm().GetByTestId("elicit-submit").Click())
	p.must(expect.Locator(p.lastAssistant()).ToContainText("Rome"))
}
