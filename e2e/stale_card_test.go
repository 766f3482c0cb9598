package e2e

import (
	"regexp"
	"testing"

	"github.com/playwright-community/playwright-go"

	"github.com/sweatpants-go/sweatpants/llm/llmtest"
)

// A card answered in another tab, in a page whose stream is down (so the
// page still shows it waiting), is refused with words saying what
// happened and what to do, not an HTTP status.
func TestAStaleCardSaysWhatHappenedWhileTheStreamIsDown(t *testing.T) {
	t.Parallel()
	model := llmtest.NewServer(t,
		llmtest.Reply{Chunks: []string{"I'll keep that for you."},
			ToolCalls: []llmtest.ToolCall{{ID: "call_1", Name: "remember_note", Arguments: `{"text":"buy milk"}`}}},
		llmtest.Text("Not noted."))
	a := startApp(t, "SWEATPANTS_PROVIDER=openai", "OPENAI_API_KEY=test", "OPENAI_BASE_URL="+model.URL)
	p := openAgent(t, a, "assistant")
	p.start("Remember to buy milk", "approval")

	// Another tab of the conversation whose stream cannot connect.
	stale := &chatPage{t: t, Page: newPageIn(t, p.Context())}
	stale.must(stale.Route(regexp.MustCompile(`/c/[0-9a-f]+/stream`), func(r playwright.Route) { _ = r.Abort() }))
	_, err := stale.Goto(p.URL())
	stale.must(err)
	q := stale.active()
	stale.must(expect.Locator(q).ToHaveAttribute("data-kind", "approval"))

	// Denied in the first tab; allowed in the stale one.
	p.must(p.active().GetByTestId("approval-deny").Click())
	p.replied("Not noted.")
	stale.must(q.GetByTestId("approval-once").Click())
	stale.must(expect.Locator(stale.GetByTestId("notice")).ToContainText("the conversation moved on meanwhile"))
	stale.must(expect.Locator(stale.GetByTestId("notice")).Not().ToContainText("HTTP"))
}
