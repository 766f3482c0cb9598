package e2e

import (
	"strings"
	"testing"

	"github.com/sweatpants-go/sweatpants/llm/llmtest"
)

// A reply cut off by a faulty endpoint: cut before it showed anything (a
// model's leading white space is nothing to see), it is asked for again
// and the user sees only the reply; cut after it showed, what showed stays,
// in one bubble that ends saying it broke off, and Retry asks for the reply again.
func TestAReplyThatBreaksOffKeepsWhatShowedAndRetries(t *testing.T) {
	t.Parallel()
	model := llmtest.NewServer(t,
		llmtest.Reply{Chunks: []string{"\n\n"}, Cut: true}, llmtest.Text("Four."),
		llmtest.Reply{Chunks: []string{"Once upon ", "a time"}, Cut: true}, llmtest.Text("Once upon a time, the end."))
	a := startApp(t, "SWEATPANTS_PROVIDER=openai", "OPENAI_API_KEY=test-key", "OPENAI_BASE_URL="+model.URL)
	p := openAgent(t, a, "assistant")

	p.send("what is 2+2?")
	p.must(expect.Locator(p.lastAssistant()).ToHaveText("Four."))
	p.must(expect.Locator(p.GetByTestId("turn-error")).ToHaveCount(0))

	p.send("tell me a story")
	failure := p.GetByTestId("reply-turn").Last()
	p.must(expect.Locator(failure.GetByTestId("turn-error")).ToHaveText("The model's reply broke off before it finished. Try again."))
	p.must(expect.Locator(failure.GetByTestId("stopped-partial")).ToHaveText("Once upon a time"))
	// One bubble: what showed, ending with what broke it off.
	p.must(expect.Locator(failure.Locator(".partial").GetByTestId("turn-error")).ToHaveCount(1))
	checkAccessible(t, p.Page, "a reply that broke off")

	p.must(failure.GetByTestId("retry").Click())
	p.must(expect.Locator(p.lastAssistant()).ToHaveText("Once upon a time, the end."))
	p.must(expect.Locator(p.GetByTestId("turn-error")).ToHaveCount(0))
}

// A reply that never ends is cut at --max-reply: the page shows it cut,
// with a note saying so, and the conversation's page stays light when it
// is loaded again.
func TestAnEndlessReplyIsCutAtTheBound(t *testing.T) {
	t.Parallel()
	chunks := make([]string, 5<<20/(4<<10)) // 5 MB, 4 KiB a chunk
	for i := range chunks {
		chunks[i] = strings.Repeat("all work and no play ", 4<<10/21) + "\n\n"
	}
	model := llmtest.NewServer(t, llmtest.Reply{Chunks: chunks, Hold: true})
	a := startApp(t, "SWEATPANTS_PROVIDER=openai", "OPENAI_API_KEY=test-key", "OPENAI_BASE_URL="+model.URL,
		"SWEATPANTS_MAX_REPLY=65536")
	p := openAgent(t, a, "assistant")
	p.send("write forever")
	p.must(expect.Locator(p.lastAssistant()).ToContainText("The model's reply was cut here: it was longer than the 64 KiB a reply may be."))

	res, err := p.Request().Get(p.URL())
	p.must(err)
	body, err := res.Body()
	p.must(err)
	if res.Status() != 200 || len(body) > 200<<10 {
		t.Errorf("the conversation's page answers %d with %d bytes, want 200 with a reply of 64 KiB and little more", res.Status(), len(body))
	}
	_, err = p.Reload()
	p.must(err)
	p.waitForStream()
	p.must(expect.Locator(p.lastAssistant()).ToContainText("was longer than the 64 KiB a reply may be."))
}
