package e2e

import (
	"encoding/base64"
	"net/http"
	"strings"
	"syscall"
	"testing"

	"github.com/playwright-community/playwright-go"
	"github.com/sweatpants-go/sweatpants/llm/llmtest"
)

// dotPNG is a picture of one pixel.
var dotPNG, _ = base64.StdEncoding.DecodeString("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==")

// pasteImage pastes a PNG into the composer, as a screenshot is pasted.
func (p *chatPage) pasteImage(name string, png []byte) {
	p.t.Helper()
	_, err := p.GetByTestId("composer-input").Evaluate(`(el, [name, b64]) => {
		const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0))
		const dt = new DataTransfer()
		dt.items.add(new File([bytes], name, { type: 'image/png' }))
		el.dispatchEvent(new ClipboardEvent('paste', { clipboardData: dt, bubbles: true, cancelable: true }))
	}`, []any{name, base64.StdEncoding.EncodeToString(png)})
	p.must(err)
}

// attachFile picks a file with the composer's Attach button.
func (p *chatPage) attachFile(name, mime string, content []byte) {
	p.t.Helper()
	p.must(p.GetByTestId("attach-input").SetInputFiles([]playwright.InputFile{{Name: name, MimeType: mime, Buffer: content}}))
}

// A picture pasted and a CSV picked go with the next message: both are
// shown in it, and the model (over the real wire) is given the picture as
// an image part and the CSV's text. The files are the session's alone:
// another browser is not found them; a picture is served as one, with
// nosniff.
func TestFilesSentWithAMessageReachTheModel(t *testing.T) {
	t.Parallel()
	model := llmtest.NewServer(t, llmtest.Text("Hello!"), llmtest.Text("A dot and two cities."))
	a := startApp(t, "SWEATPANTS_PROVIDER=openai", "OPENAI_API_KEY=test", "OPENAI_BASE_URL="+model.URL)
	p := openAgent(t, a, "assistant")
	p.send("Hi")
	p.must(expect.Locator(p.lastAssistant()).ToHaveText("Hello!"))

	p.pasteImage("dot.png", dotPNG)
	p.attachFile("cities.csv", "text/csv", []byte("city,population\nOslo,709000\nBergen,291000\n"))
	stored := p.Locator(`[data-testid=composer-file][data-state=stored]`)
	p.must(expect.Locator(stored).ToHaveCount(2))
	p.send("What are these?")
	p.must(expect.Locator(p.lastAssistant()).ToHaveText("A dot and two cities."))
	p.must(expect.Locator(p.GetByTestId("composer-file")).ToHaveCount(0))

	turn := p.GetByTestId("user-turn").Last()
	p.must(expect.Locator(turn.GetByTestId("attachment")).ToHaveCount(2))
	p.must(expect.Locator(turn.GetByTestId("attachment-image")).ToHaveAttribute("alt", "dot.png"))
	p.must(expect.Locator(turn.GetByTestId("attachment-file")).ToContainText("cities.csv"))
	loaded, err := turn.GetByTestId("attachment-image").Evaluate(`img => img.complete && img.naturalWidth`, nil)
	p.must(err)
	if loaded != 1 {
		t.Errorf("the picture shown is %v pixels wide, want the pasted one", loaded)
	}

	reqs := model.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d model calls, want 2", len(reqs))
	}
	last := reqs[1].Messages[len(reqs[1].Messages)-1]
	if last.Role != "user" || !strings.Contains(last.Content, "What are these?") || !strings.Contains(last.Content, "cities.csv") ||
		!strings.Contains(last.Content, "Bergen,291000") {
		t.Errorf("the model was given %q, want the words and the CSV's text", last.Content)
	}
	if len(last.Images) != 1 || last.Images[0] != "data:image/png;base64,"+base64.StdEncoding.EncodeToString(dotPNG) {
		t.Errorf("the model was given the images %q, want the pasted picture", last.Images)
	}

	src, err := turn.GetByTestId("attachment-image").GetAttribute("src")
	p.must(err)
	res, err := p.Context().Request().Get(a.URL + src)
	p.must(err)
	if res.Status() != http.StatusOK || res.Headers()["content-type"] != "image/png" || res.Headers()["x-content-type-options"] != "nosniff" {
		t.Errorf("the picture is served %d %v, want 200 image/png with nosniff", res.Status(), res.Headers())
	}
	// The event stream names the files with the message that started the
	// run, each with its URL.
	found := p.streamHas(a, func(line string) bool {
		return strings.Contains(line, `"name":"dot.png","type":"image/png","size":`) && strings.Contains(line, `"url":"`+src+`"`)
	})
	if !found {
		t.Error("the event stream does not name the files sent with the message")
	}

	other, err := http.Get(a.URL + src)
	p.must(err)
	other.Body.Close()
	if other.StatusCode != http.StatusNotFound {
		t.Errorf("another browser fetching the picture got %d, want 404", other.StatusCode)
	}
}

// A file over the limit and a file of a type not taken say so on their
// chips, in words, and go with no message: what is then sent carries none,
// and nothing of them is recorded. Killed between an upload and the send,
// the server keeps no message and the file went nowhere.
func TestRefusedFilesSayWhyAndNothingIsRecorded(t *testing.T) {
	t.Parallel()
	a := startApp(t, "SWEATPANTS_MAX_FILE_SIZE=1000")
	p := openAgent(t, a, "assistant")
	p.send("Hi")
	p.must(expect.Locator(p.GetByTestId("assistant-message")).ToHaveCount(1))

	p.attachFile("big.txt", "text/plain", []byte(strings.Repeat("x", 2000)))
	refused := p.Locator(`[data-testid=composer-file][data-state=refused]`)
	p.must(expect.Locator(refused).ToHaveCount(1))
	p.must(expect.Locator(refused.GetByTestId("composer-file-state")).ToContainText("big.txt"))
	p.must(expect.Locator(refused.GetByTestId("composer-file-state")).ToHaveAttribute("role", "alert"))
	p.attachFile("tool.exe", "application/x-msdownload", []byte("MZ\x90\x00 not a program"))
	p.must(expect.Locator(refused).ToHaveCount(2))
	p.must(expect.Locator(refused.Last().GetByTestId("composer-file-state")).ToContainText("tool.exe"))

	p.send("Anything?")
	p.must(expect.Locator(p.GetByTestId("assistant-message")).ToHaveCount(2))
	p.must(expect.Locator(p.GetByTestId("attachment")).ToHaveCount(0))

	// An upload, then the server dies before the message is sent.
	p.attachFile("notes.txt", "text/plain", []byte("buy milk\n"))
	p.must(expect.Locator(p.Locator(`[data-testid=composer-file][data-state=stored]`)).ToHaveCount(1))
	a.stop(syscall.SIGKILL)
	a.start("SWEATPANTS_MAX_FILE_SIZE=1000")
	_, err := p.Reload()
	p.must(err)
	p.waitForStream()
	p.must(expect.Locator(p.GetByTestId("user-message")).ToHaveText([]string{"Hi", "Anything?"}))
	p.must(expect.Locator(p.GetByTestId("attachment")).ToHaveCount(0))
}

// An edit of a message sent with files keeps them: the new version shows
// them and the model is given them again. A picture in SVG, which could
// hold a script, is not taken, and nothing of it runs.
func TestAnEditKeepsTheFilesAndAnSVGIsNotTaken(t *testing.T) {
	t.Parallel()
	model := llmtest.NewServer(t, llmtest.Text("Hello!"), llmtest.Text("Two cities."), llmtest.Text("Still two cities."))
	a := startApp(t, "SWEATPANTS_PROVIDER=openai", "OPENAI_API_KEY=test", "OPENAI_BASE_URL="+model.URL)
	p := openAgent(t, a, "assistant")
	p.send("Hi")
	p.must(expect.Locator(p.lastAssistant()).ToHaveText("Hello!"))

	p.attachFile("evil.svg", "image/svg+xml", []byte(`<svg xmlns="http://www.w3.org/2000/svg"><script>window.parent.__svg = 1</script></svg>`))
	p.must(expect.Locator(p.Locator(`[data-testid=composer-file][data-state=refused]`)).ToContainText("evil.svg"))
	p.must(p.Locator(`[data-testid=composer-file][data-state=refused] button`).Click())

	p.attachFile("cities.csv", "text/csv", []byte("city\nOslo\nBergen\n"))
	p.must(expect.Locator(p.Locator(`[data-testid=composer-file][data-state=stored]`)).ToHaveCount(1))
	p.send("How many?")
	p.must(expect.Locator(p.lastAssistant()).ToHaveText("Two cities."))

	turn := p.GetByTestId("user-turn").Last()
	p.must(turn.GetByTestId("edit-message").Click())
	p.must(turn.GetByTestId("edit-input").Fill("How many cities?"))
	p.must(turn.GetByTestId("edit-send").Click())
	p.must(expect.Locator(p.lastAssistant()).ToHaveText("Still two cities."))
	p.must(expect.Locator(p.GetByTestId("user-turn").Last().GetByTestId("attachment-file")).ToContainText("cities.csv"))
	reqs := model.Requests()
	last := reqs[len(reqs)-1].Messages
	if m := last[len(last)-1]; !strings.Contains(m.Content, "How many cities?") || !strings.Contains(m.Content, "Bergen") {
		t.Errorf("after the edit the model was given %q, want the new words and the file", m.Content)
	}
	ran, err := p.Evaluate(`() => window.__svg === 1`)
	p.must(err)
	if ran != false {
		t.Error("the SVG's script ran")
	}
}

// A file dropped on the composer is uploaded and sent with the next
// message, as one picked is; the offline model says what it received.
func TestAFileDroppedOnTheComposerIsSent(t *testing.T) {
	t.Parallel()
	a := startApp(t)
	p := openAgent(t, a, "assistant")
	p.dropFile("#composer", "trips.csv", "text/csv", "city,days\nOslo,3\nBergen,2\n")
	p.must(expect.Locator(p.Locator(`[data-testid=composer-file][data-state=stored]`)).ToHaveCount(1))
	p.send("What is in it?")
	p.must(expect.Locator(p.lastAssistant()).ToContainText("I received one file:"))
	p.must(expect.Locator(p.lastAssistant()).ToContainText("trips.csv"))
	p.must(expect.Locator(p.GetByTestId("user-turn").Last().GetByTestId("attachment-file")).ToContainText("trips.csv"))
}

// dropFile drops a file on the element at selector, as a file dragged from
// the desktop is dropped: dragover, then drop, with the file in the
// DataTransfer.
func (p *chatPage) dropFile(selector, name, mime, content string) {
	p.t.Helper()
	_, err := p.Locator(selector).Evaluate(`(el, [name, mime, content]) => {
		const dt = new DataTransfer()
		dt.items.add(new File([content], name, { type: mime }))
		for (const type of ['dragover', 'drop']) {
			el.dispatchEvent(new DragEvent(type, { dataTransfer: dt, bubbles: true, cancelable: true }))
		}
	}`, []string{name, mime, content})
	p.must(err)
}
