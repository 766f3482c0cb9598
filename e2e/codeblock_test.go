package e2e

import (
	"testing"

	"github.com/playwright-community/playwright-go"

	"github.com/sweatpants-go/sweatpants/llm/llmtest"
)

// On a phone a code block's Copy button sits beside the code, never on
// it: a line of code as long as the screen stays readable to its end.
func TestCopyLeavesALongLineOfCodeReadableOnAPhone(t *testing.T) {
	t.Parallel()
	long := "book --city Nice --from Lisbon --travellers 2 --cabin economy --hotel none --window-seat"
	model := llmtest.NewServer(t, llmtest.Text("Run this:\n\n```sh\n"+long+"\nbook --confirm\n```\n"))
	a := startApp(t, "SWEATPANTS_PROVIDER=openai", "OPENAI_API_KEY=test", "OPENAI_BASE_URL="+model.URL)
	p := phonePage(t)
	p.startWith(a, "assistant", "How do I book it?")
	code := p.lastAssistant().Locator("pre code")
	p.must(expect.Locator(code).ToContainText(long))
	p.fitsThePhone("a reply with a long line of code")

	// Where the button is, and the part of the code's first line the
	// block shows (the rest scrolls sideways).
	v, err := code.Evaluate(`code => {
		const box = (r) => ({left: r.left, right: r.right, top: r.top, bottom: r.bottom})
		const button = code.closest('.code-block').querySelector('[data-testid=copy-code]').getBoundingClientRect()
		const shown = code.closest('pre').getBoundingClientRect()
		const text = code.firstChild
		const line = document.createRange()
		line.setStart(text, 0)
		line.setEnd(text, text.textContent.indexOf('\n'))
		const r = line.getBoundingClientRect()
		return {button: box(button), line: {left: Math.max(r.left, shown.left), right: Math.min(r.right, shown.right), top: r.top, bottom: r.bottom}}
	}`, nil)
	p.must(err)
	boxes := v.(map[string]any)
	button, line := rectOf(boxes["button"]), rectOf(boxes["line"])
	if line.right-line.left < 200 {
		t.Fatalf("the first line of code shows %.0f px wide on a %d px phone; the test wants one that fills the block", line.right-line.left, phoneWidth)
	}
	if button.overlaps(line) {
		t.Errorf("the Copy button (x %.0f–%.0f, y %.0f–%.0f) covers the first line of code (x %.0f–%.0f, y %.0f–%.0f)",
			button.left, button.right, button.top, button.bottom, line.left, line.right, line.top, line.bottom)
	}

	p.checkBothThemes("a reply with a long line of code on a phone")

	// The button still copies the code, all of it.
	p.must(p.Context().GrantPermissions([]string{"clipboard-read", "clipboard-write"}, playwright.BrowserContextGrantPermissionsOptions{Origin: playwright.String(a.URL)}))
	p.must(p.lastAssistant().GetByTestId("copy-code").Click())
	got, err := p.Evaluate(`() => navigator.clipboard.readText()`)
	p.must(err)
	if want := long + "\nbook --confirm\n"; got != want {
		t.Errorf("Copy put %q on the clipboard, want %q", got, want)
	}
}

// rect is a box on the screen, as getBoundingClientRect gives it.
type rect struct{ left, right, top, bottom float64 }

func rectOf(v any) rect {
	m := v.(map[string]any)
	f := func(k string) float64 {
		switch n := m[k].(type) {
		case int:
			return float64(n)
		case float64:
			return n
		}
		return 0
	}
	return rect{f("left"), f("right"), f("top"), f("bottom")}
}

// overlaps reports whether r and o share any area.
func (r rect) overlaps(o rect) bool {
	return r.left < o.right && o.left < r.right && r.top < o.bottom && o.top < r.bottom
}
