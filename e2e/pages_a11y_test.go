package e2e

import (
	"fmt"
	"math"
	"testing"

	"github.com/playwright-community/playwright-go"

	"github.com/sweatpants-go/sweatpants/llm/llmtest"
)

// boxOf is where the first element loc finds is on the screen.
func (p *chatPage) boxOf(loc playwright.Locator) *playwright.Rect {
	p.t.Helper()
	box, err := loc.First().BoundingBox()
	p.must(err)
	if box == nil {
		p.t.Fatalf("%v is not shown", loc)
	}
	return box
}

// evalFloat evaluates expr on the page, a number.
func (p *chatPage) evalFloat(expr string) float64 {
	p.t.Helper()
	v, err := p.Evaluate(expr)
	p.must(err)
	switch n := v.(type) {
	case int:
		return float64(n)
	case float64:
		return n
	}
	p.t.Fatalf("%s = %v, not a number", expr, v)
	return 0
}

// On a desktop the sidebar and the header stay where they are while a long
// conversation scrolls beneath them, and the composer stays at the bottom.
func TestTheSidebarAndHeaderStayPutWhileTheMessagesScroll(t *testing.T) {
	t.Parallel()
	a := startApp(t)
	p := &chatPage{t: t, Page: newPage(t)}
	p.must(p.SetViewportSize(1280, 600))
	p.startWith(a, "assistant", "What is the weather in Lisbon?")
	for i := 2; i <= 6; i++ {
		p.send("And in Paris?")
		p.must(expect.Locator(p.GetByTestId("assistant-message")).ToHaveCount(i))
	}
	if h := p.evalFloat(`() => document.documentElement.scrollHeight`); h < 1000 {
		t.Fatalf("the conversation is %vpx tall; the test wants one that scrolls well past 600px", h)
	}
	for _, y := range []string{"0", "document.documentElement.scrollHeight / 2", "document.documentElement.scrollHeight"} {
		_, err := p.Evaluate(`y => new Promise(done => { window.scrollTo(0, eval(y)); requestAnimationFrame(() => requestAnimationFrame(done)) })`, y)
		p.must(err)
		// Within a pixel: the page's height may end in a fraction of one.
		if box := p.boxOf(p.GetByTestId("sidebar")); math.Abs(box.Y) > 1 || math.Abs(box.Height-600) > 1 {
			t.Errorf("scrolled to %s: the sidebar spans y %v to %v, want 0 to 600", y, box.Y, box.Y+box.Height)
		}
		if box := p.boxOf(p.GetByTestId("conversation-title")); box.Y < 0 || box.Y > 40 {
			t.Errorf("scrolled to %s: the title is at y %v, want at the top", y, box.Y)
		}
		if box := p.boxOf(p.GetByTestId("composer-input")); box.Y+box.Height > 600 || box.Y+box.Height < 540 {
			t.Errorf("scrolled to %s: the composer ends at y %v, want at the bottom of 600", y, box.Y+box.Height)
		}
	}
}

// phonePage is a page on a 390 × 844 touch screen.
func phonePage(t *testing.T) *chatPage {
	t.Helper()
	return &chatPage{t: t, Page: newPageWith(t, playwright.BrowserNewContextOptions{HasTouch: playwright.Bool(true),
		IsMobile: playwright.Bool(true), Viewport: &playwright.Size{Width: 390, Height: 844}})}
}

// On a phone the top bar stays small, the conversations wait behind a
// button, and no page is wider than the screen.
func TestOnAPhoneTheTopBarIsSmallAndNothingOverflows(t *testing.T) {
	t.Parallel()
	a := startApp(t)
	p := phonePage(t)
	fits := func(what string) {
		t.Helper()
		if w := p.evalFloat(`() => document.documentElement.scrollWidth`); w > 390 {
			t.Errorf("%s: the page is %vpx wide on a 390px screen", what, w)
		}
	}
	_, err := p.Goto(a.URL + "/new?agent=chat")
	p.must(err)
	sidebar := p.GetByTestId("sidebar")
	p.must(expect.Locator(sidebar).ToBeHidden())
	if top := p.boxOf(p.Locator(".chat-top")); top.Y+top.Height > 844/6 {
		t.Errorf("the top bar ends %vpx down an empty 844px screen, want at most a sixth of it", top.Y+top.Height)
	}
	p.must(expect.Locator(p.GetByTestId("starter").First()).ToBeInViewport())
	fits("the new chat")

	// The conversations are a tap away, and go away again.
	toggle := p.GetByTestId("nav-toggle")
	p.must(expect.Locator(toggle).ToHaveAttribute("aria-expanded", "false"))
	p.must(toggle.Click())
	p.must(expect.Locator(toggle).ToHaveAttribute("aria-expanded", "true"))
	p.must(expect.Locator(p.GetByTestId("new-chat")).ToBeInViewport())
	fits("the conversations open")
	p.must(p.GetByTestId("nav-close").Click())
	p.must(expect.Locator(sidebar).ToBeHidden())

	p.send("Book a flight to Lisbon next Friday, with a window seat, and a long message that has to wrap on a phone")
	p.must(expect.Locator(p.GetByTestId("elicit").Last()).ToBeVisible())
	if top := p.boxOf(p.Locator(".chat-top")); top.Y+top.Height > 844/6 {
		t.Errorf("the top bar of a conversation ends %vpx down an 844px screen", top.Y+top.Height)
	}
	fits("a conversation")
	p.must(toggle.Click())
	p.must(expect.Locator(p.GetByTestId("conv-list").Locator(".conv-link")).ToHaveCount(1))
	p.must(p.Keyboard().Press("Escape"))
	p.must(expect.Locator(sidebar).ToBeHidden())

	res, err := p.Goto(a.URL + "/c/0123456789abcdef")
	p.must(err)
	if res.Status() != 404 {
		t.Errorf("a conversation that is not there: status %d", res.Status())
	}
	fits("the not-found page")
}

// The messages are a polite log: a reply is announced once, finished, not
// token by token. While it streams it is drawn outside the log, marked
// busy; each message is labelled with who said it.
func TestAScreenReaderHearsEachReplyOnce(t *testing.T) {
	t.Parallel()
	model := llmtest.NewServer(t, llmtest.Reply{Chunks: []string{"Lisbon ", "is ", "sunny ", "today."}})
	gate := newModelGate(t, model) // the reply streams as far as the test lets it
	a := startApp(t, "SWEATPANTS_PROVIDER=openai", "OPENAI_API_KEY=test", "OPENAI_BASE_URL="+gate.URL)
	p := openAgent(t, a, "assistant")
	// Each change to the log from the first message on is noted: what was
	// added, and any text that changed in place.
	p.must(p.AddInitScript(playwright.Script{Content: playwright.String(`
		window.logged = []
		addEventListener('DOMContentLoaded', () => {
			const log = document.querySelector('[role=log]')
			if (!log) return
			new MutationObserver((records) => {
				for (const r of records) {
					if (r.type === 'characterData') window.logged.push('text: ' + r.target.textContent)
					for (const n of r.addedNodes) if (n.nodeType === 1) window.logged.push(n.dataset.testid || n.className)
				}
			}).observe(log, {subtree: true, childList: true, characterData: true})
		})`)}))
	p.send("What is the weather in Lisbon?")
	log := p.Locator("[role=log]")
	p.must(expect.Locator(log).ToHaveAttribute("aria-live", "polite"))
	gate.allow(2)
	draft := p.GetByTestId("draft")
	p.must(expect.Locator(draft).ToContainText("Lisbon is"))
	p.must(expect.Locator(draft).ToHaveAttribute("aria-busy", "true"))
	inLog, err := draft.Evaluate(`d => d.closest('[role=log]') !== null`, nil)
	p.must(err)
	if inLog != false {
		t.Error("the streaming draft is inside the live region")
	}
	p.must(expect.Locator(log).Not().ToContainText("Lisbon is"))
	gate.allow(2)
	p.must(expect.Locator(p.lastAssistant()).ToHaveText("Lisbon is sunny today."))
	p.must(expect.Locator(log).ToContainText("You said:What is the weather in Lisbon?"))
	p.must(expect.Locator(log).ToContainText("The agent said:"))
	p.must(expect.Locator(p.GetByTestId("reply-turn").Locator(".visually-hidden").First()).ToHaveText("The agent said:"))
	logged, err := p.Evaluate(`() => window.logged`)
	p.must(err)
	replies, changed := 0, 0
	for _, e := range logged.([]any) {
		s := fmt.Sprint(e)
		if s == "reply-turn" {
			replies++
		}
		if len(s) > 5 && s[:5] == "text:" {
			changed++
		}
	}
	if replies != 1 || changed != 0 {
		t.Errorf("the log changed so: %v; want the reply added once, and no text changed in place", logged)
	}
}

// Esc stops a running turn from the composer, and cancels an edit in
// progress instead when there is one.
func TestEscStopsATurnAndCancelsAnEdit(t *testing.T) {
	t.Parallel()
	model := llmtest.NewServer(t, llmtest.Reply{Chunks: []string{"Once upon a time, "}, Hold: true})
	a := startApp(t, "SWEATPANTS_PROVIDER=openai", "OPENAI_API_KEY=test", "OPENAI_BASE_URL="+model.URL)
	p := openAgent(t, a, "assistant")
	p.send("Tell me a long story")
	p.must(expect.Locator(p.GetByTestId("draft")).ToContainText("Once upon a time"))

	// An edit open: Esc closes it, and the turn goes on.
	p.must(p.GetByTestId("edit-message").Click())
	edit := p.GetByTestId("edit-input")
	p.must(edit.Fill("Tell me a short story"))
	p.must(edit.Press("Escape"))
	p.must(expect.Locator(p.GetByTestId("edit-form")).ToBeHidden())
	p.must(expect.Locator(p.GetByTestId("user-message")).ToHaveText("Tell me a long story"))
	p.must(expect.Locator(p.GetByTestId("stop")).ToBeVisible())

	// Nothing open: Esc stops the turn, keeping what it had said.
	p.must(p.GetByTestId("composer-input").Press("Escape"))
	p.must(expect.Locator(p.GetByTestId("turn-stopped")).ToBeVisible())
	p.must(expect.Locator(p.GetByTestId("stopped-partial")).ToContainText("Once upon a time"))
	p.must(expect.Locator(p.GetByTestId("stop")).ToHaveCount(0))
}

// A notice of what a message sent while the agent worked did goes once the
// reply it speaks of has arrived.
func TestANoticeOfAMessageSentMidReplyGoesWithTheReply(t *testing.T) {
	t.Parallel()
	model := llmtest.NewServer(t, llmtest.Reply{Chunks: []string{"Once upon a time, "}, Hold: true},
		llmtest.Reply{Chunks: []string{"Fo", "ur."}})
	gate := newModelGate(t, model) // the second reply waits until the notice was seen
	a := startApp(t, "SWEATPANTS_PROVIDER=openai", "OPENAI_API_KEY=test", "OPENAI_BASE_URL="+gate.URL)
	p := openAgent(t, a, "assistant")
	p.send("Tell me a long story")
	gate.allow(1)
	p.must(expect.Locator(p.GetByTestId("draft")).ToContainText("Once upon a time"))
	p.send("Never mind. What is 2+2?")
	notice := p.GetByTestId("notice")
	p.must(expect.Locator(notice).ToHaveText("Sent — it interrupted the reply."))
	gate.allow(2)
	p.must(expect.Locator(p.lastAssistant()).ToHaveText("Four."))
	p.must(expect.Locator(notice).ToHaveText(""))
	_, err := p.Reload()
	p.must(err)
	p.waitForStream()
	p.must(expect.Locator(notice).ToHaveText(""))
}

// The buttons beside a message are readable (4.5:1) and big enough to tap
// (24 px), in the light theme and the dark one.
func TestMessageToolsAreReadableAndBigEnough(t *testing.T) {
	t.Parallel()
	a := startApp(t)
	for _, scheme := range []*playwright.ColorScheme{playwright.ColorSchemeLight, playwright.ColorSchemeDark} {
		t.Run(fmt.Sprint(*scheme), func(t *testing.T) {
			page := newPageWith(t, playwright.BrowserNewContextOptions{ColorScheme: scheme})
			p := &chatPage{t: t, Page: page}
			p.startWith(a, "assistant", "What is the weather in Lisbon?")
			for _, id := range []string{"edit-message", "retry", "ask-aside", "rename", "delete"} {
				b := p.GetByTestId(id).Last()
				box := p.boxOf(b)
				if box.Width < 24 || box.Height < 24 {
					t.Errorf("%s is %.0f × %.0f px, want 24 × 24 at least", id, box.Width, box.Height)
				}
			}
			checkAccessible(t, p, fmt.Sprintf("a chat with messages (%s)", *scheme))
		})
	}
}

// axe-core finds nothing serious on the shell's pages.
func TestTheShellsPagesPassAxe(t *testing.T) {
	t.Parallel()
	a := startApp(t)
	p := &chatPage{t: t, Page: newPage(t)}
	_, err := p.Goto(a.URL + "/new?agent=chat")
	p.must(err)
	checkAccessible(t, p, "the new-chat page")
	p.startWith(a, "assistant", "What is the weather in Lisbon?")
	p.must(p.GetByTestId("rename").Click())
	p.must(p.GetByTestId("rename-input").Fill(""))
	p.must(p.GetByTestId("rename-save").Click())
	p.must(expect.Locator(p.GetByTestId("rename-problem")).ToBeVisible())
	checkAccessible(t, p, "a refused rename")
	_, err = p.Goto(a.URL + "/nowhere")
	p.must(err)
	checkAccessible(t, p, "the not-found page")
	ph := phonePage(t)
	_, err = ph.Goto(a.URL + "/new?agent=chat")
	ph.must(err)
	ph.must(ph.GetByTestId("nav-toggle").Click())
	checkAccessible(t, ph, "the conversations on a phone")
}
