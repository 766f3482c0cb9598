package e2e

import (
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/playwright-community/playwright-go"

	"github.com/sweatpants-go/sweatpants/llm/llmtest"
)

// The showcase is model-driven: the (offline) model reads "where am i",
// calls the location tool, whose question reaches the browser's location
// component; the inspector shows the model call and the tool call.
func TestTheModelReachesTheLocationThroughAToolCall(t *testing.T) {
	t.Parallel()
	a := startApp(t)
	p := openShowcase(t, a, "geolocation")
	p.must(p.Context().SetGeolocation(&playwright.Geolocation{Latitude: 59.9139, Longitude: 10.7522, Accuracy: playwright.Float(30)}))
	q := p.ask("where am i", "location")
	p.must(q.GetByTestId("location-share").Click())
	p.replied("You are at 59.9139, 10.7522 (within 30 m). Your device went through: acquiring.")

	ins := &chatPage{t: t, Page: newPageIn(t, p.Context())}
	_, err := ins.Goto(p.URL() + "/tree")
	ins.must(err)
	ins.waitForStream()
	sample := ins.Locator(`[data-testid=tree-node][data-kind=sample]`)
	ins.must(expect.Locator(sample).ToHaveCount(1))
	ins.must(sample.Locator("summary").First().Click())
	ins.must(expect.Locator(sample.GetByTestId("node-payload").First()).ToContainText(`"name": "shareLocation"`))
	tool := ins.Locator(`[data-testid=tree-node][data-kind=tool]`)
	ins.must(expect.Locator(tool).ToHaveCount(1))
	ins.must(tool.Locator("summary").First().Click())
	ins.must(expect.Locator(tool.GetByTestId("node-payload").First()).ToContainText(`"tool": "shareLocation"`))
}

// A failed model call shows a short sentence, the provider's words behind
// Details; Retry calls the model again without asking the form again.
func TestAModelFailureIsRetriedWithoutAskingAgain(t *testing.T) {
	t.Parallel()
	model := llmtest.NewServer(t, llmtest.Call("plan-trip", `{"request":"Plan a trip to Nice"}`), llmtest.Fail(400, "This model does not take requests about Nice on Mondays."), llmtest.Text("Day 1: ", "the sea."))
	a := startApp(t, "SWEATPANTS_PROVIDER=openai", "OPENAI_API_KEY=test", "OPENAI_BASE_URL="+model.URL)
	p := openAgent(t, a, "concierge")
	p.send("Plan a trip to Nice")
	p.fillTrip("Nice", "2", "economy", false)
	p.must(p.pendingForm().GetByTestId("elicit-submit").Click())

	failure := p.GetByTestId("turn-error")
	p.must(expect.Locator(failure).ToHaveText("The model could not answer."))
	details := p.GetByTestId("failure-details")
	p.must(expect.Locator(details.Locator("pre")).Not().ToBeVisible())
	p.must(details.Locator("summary").Click())
	p.must(expect.Locator(details.Locator("pre")).ToContainText("does not take requests about Nice on Mondays"))
	// The endpoint is named as configured, by the model it serves: not
	// "openai", which it is not, nor its host, which the chat keeps to itself.
	p.must(expect.Locator(details.Locator("pre")).ToContainText("(HTTP 400 from the endpoint serving gpt-4o-mini)"))
	p.must(expect.Locator(details.Locator("pre")).Not().ToContainText("openai"))
	p.must(expect.Locator(details.Locator("pre")).Not().ToContainText(strings.TrimPrefix(strings.TrimSuffix(model.URL, "/v1"), "http://")))

	p.must(p.GetByTestId("reply-turn").Last().GetByTestId("retry").Click())
	p.must(expect.Locator(p.lastAssistant()).ToContainText("Your trip to Nice is planned"))
	p.must(expect.Locator(p.lastAssistant()).ToContainText("Day 1: the sea."))
	p.must(expect.Locator(p.GetByTestId("turn-error")).ToHaveCount(0))
	// The form was asked once, and answered once.
	p.must(expect.Locator(p.Locator(`[data-testid=elicit]`)).ToHaveCount(1))
}

// While a model call has sent nothing, the page says how long the turn has
// been waiting on it.
func TestThePageSaysHowLongTheModelKeepsItWaiting(t *testing.T) {
	t.Parallel()
	slow := llmtest.Text("Day 1: ", "the sea.")
	slow.Delay = 2500 * time.Millisecond
	model := llmtest.NewServer(t, llmtest.Call("plan-trip", `{"request":"Plan a trip to Nice"}`), slow)
	a := startApp(t, "SWEATPANTS_PROVIDER=openai", "OPENAI_API_KEY=test", "OPENAI_BASE_URL="+model.URL)
	p := openAgent(t, a, "concierge")
	p.send("Plan a trip to Nice")
	p.fillTrip("Nice", "2", "economy", false)
	p.must(p.pendingForm().GetByTestId("elicit-submit").Click())
	p.must(expect.Locator(p.GetByTestId("model-wait")).ToHaveText(regexp.MustCompile(`^Waiting for the model… [12] s$`)))
	p.must(expect.Locator(p.lastAssistant()).ToContainText("Day 1: the sea."))
	p.must(expect.Locator(p.GetByTestId("model-wait")).ToHaveCount(0))
}

// A reply is markdown: a table and a code block render, with a button that
// copies the code; a <script> the model writes is shown as text and does
// not run.
func TestAReplyRendersAsMarkdown(t *testing.T) {
	t.Parallel()
	plan := "| Day | Plan |\n|---|---|\n| 1 | **The sea** |\n\n```\nbook --city Nice\n```\n\n<script>window.__md = 1</script>"
	model := llmtest.NewServer(t, llmtest.Call("plan-trip", `{"request":"Plan a trip to Nice"}`), llmtest.Text(plan))
	a := startApp(t, "SWEATPANTS_PROVIDER=openai", "OPENAI_API_KEY=test", "OPENAI_BASE_URL="+model.URL)
	p := openAgent(t, a, "concierge")
	p.send("Plan a trip to Nice")
	p.fillTrip("Nice", "2", "economy", false)
	p.must(p.pendingForm().GetByTestId("elicit-submit").Click())

	reply := p.lastAssistant()
	p.must(expect.Locator(reply.Locator("table th").First()).ToHaveText("Day"))
	p.must(expect.Locator(reply.Locator("table td strong")).ToHaveText("The sea"))
	p.must(expect.Locator(reply.Locator("pre code")).ToHaveText("book --city Nice\n"))
	p.must(expect.Locator(reply.GetByTestId("copy-code")).ToBeVisible())
	p.must(expect.Locator(reply).ToContainText("<script>window.__md = 1</script>"))
	ran, err := p.Evaluate(`() => window.__md === 1`)
	p.must(err)
	if ran != false {
		t.Fatal("a <script> in the model's reply ran")
	}
}

// With a small compaction threshold (200 tokens: the third trip passes it,
// each trip's question, answer and tool result counted),
// replies stay replies after earlier
// messages are summarized, and the chat shows where that happened.
func TestCompactionKeepsTheConversation(t *testing.T) {
	t.Parallel()
	a := startApp(t, "SWEATPANTS_COMPACT_TOKENS=200")
	p := openChat(t, a)
	for i, city := range []string{"Oslo", "Riga", "Porto"} {
		p.send("Plan a trip to " + city)
		p.fillTrip(city, "1", "economy", false)
		p.must(p.pendingForm().GetByTestId("elicit-submit").Click())
		p.must(expect.Locator(p.GetByTestId("assistant-message")).ToHaveCount(i + 1))
		p.must(expect.Locator(p.lastAssistant()).ToContainText("Your trip to " + city + " is planned"))
		p.must(expect.Locator(p.lastAssistant()).Not().ToContainText("Summary of"))
	}
	marker := p.GetByTestId("summary-marker")
	p.must(expect.Locator(marker).ToHaveCount(1))
	label, err := marker.Locator("summary").TextContent()
	p.must(err)
	m := regexp.MustCompile(`^The (\d+) messages above are summarized for the model from here on$`).FindStringSubmatch(label)
	if m == nil {
		t.Fatalf("the marker reads %q", label)
	}
	p.must(marker.Locator("summary").Click())
	p.must(expect.Locator(marker.Locator(".summary-text")).ToContainText("Summary of " + m[1] + " messages"))
}
