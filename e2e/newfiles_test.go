package e2e

import (
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/playwright-community/playwright-go"

	"github.com/sweatpants-go/sweatpants/llm/llmtest"
)

// storedChips are the chips of files stored, ready to go, in the composer.
func (p *chatPage) storedChips() playwright.Locator {
	return p.Locator(`[data-testid=composer-file][data-state=stored]`)
}

// lastUserContent is what the model was last given as the user's words.
func lastUserContent(t *testing.T, model *llmtest.Server) string {
	t.Helper()
	reqs := model.Requests()
	if len(reqs) == 0 {
		t.Fatal("the model was never called")
	}
	msgs := reqs[len(reqs)-1].Messages
	return msgs[len(msgs)-1].Content
}

// A file attached on the new chat page goes with the first message: the
// conversation's page shows it with the message, and the model is given
// it. The page with a file waiting is accessible.
func TestAFileAttachedOnTheNewChatPageGoesWithTheFirstMessage(t *testing.T) {
	t.Parallel()
	model := llmtest.NewServer(t, llmtest.Text("Two cities."))
	a := startApp(t, "SWEATPANTS_PROVIDER=openai", "OPENAI_API_KEY=test", "OPENAI_BASE_URL="+model.URL)
	p := openAgent(t, a, "assistant")
	p.attachFile("cities.csv", "text/csv", []byte("city\nOslo\nBergen\n"))
	p.must(expect.Locator(p.storedChips()).ToHaveCount(1))
	checkAccessible(t, p.Page, "the new chat page with a file attached")

	p.send("How many?")
	p.must(expect.Locator(p.lastAssistant()).ToHaveText("Two cities."))
	p.must(expect.Locator(p.GetByTestId("user-turn").GetByTestId("attachment-file")).ToContainText("cities.csv"))
	if got := lastUserContent(t, model); !strings.Contains(got, "How many?") || !strings.Contains(got, "Bergen") {
		t.Errorf("the model was given %q, want the words and the file", got)
	}
}

// An edit shows the message's files as chips: one taken out and another
// attached, the new version carries exactly those, to the page and to the
// model; the old version, switched back to, still shows its own.
func TestAnEditTakesOutAFileAndAttachesAnother(t *testing.T) {
	t.Parallel()
	model := llmtest.NewServer(t, llmtest.Text("Read."), llmtest.Text("Read again."))
	a := startApp(t, "SWEATPANTS_PROVIDER=openai", "OPENAI_API_KEY=test", "OPENAI_BASE_URL="+model.URL)
	p := openAgent(t, a, "assistant")
	p.attachFile("a.txt", "text/plain", []byte("apples\n"))
	p.attachFile("b.txt", "text/plain", []byte("bananas\n"))
	p.must(expect.Locator(p.storedChips()).ToHaveCount(2))
	p.send("Read these")
	p.must(expect.Locator(p.lastAssistant()).ToHaveText("Read."))

	turn := p.GetByTestId("user-turn").Last()
	p.must(turn.GetByTestId("edit-message").Click())
	chips := turn.GetByTestId("edit-file")
	p.must(expect.Locator(chips).ToHaveCount(2))
	p.must(turn.GetByRole("button", playwright.LocatorGetByRoleOptions{Name: "Remove a.txt"}).Click())
	p.must(turn.GetByTestId("edit-attach-input").SetInputFiles([]playwright.InputFile{{Name: "c.txt", MimeType: "text/plain", Buffer: []byte("cherries\n")}}))
	p.must(expect.Locator(turn.Locator(`[data-testid=edit-file][data-state=stored]`)).ToHaveCount(2))
	p.must(turn.GetByTestId("edit-input").Fill("Read these again"))
	p.must(turn.GetByTestId("edit-send").Click())
	p.must(expect.Locator(p.lastAssistant()).ToHaveText("Read again."))

	files := p.GetByTestId("user-turn").Last().GetByTestId("attachment-file")
	p.must(expect.Locator(files).ToHaveCount(2))
	p.must(expect.Locator(files).ToContainText([]string{"b.txt", "c.txt"}))
	got := lastUserContent(t, model)
	if !strings.Contains(got, "Read these again") || !strings.Contains(got, "bananas") || !strings.Contains(got, "cherries") || strings.Contains(got, "apples") {
		t.Errorf("the new version gave the model %q, want the new words with b.txt and c.txt alone", got)
	}

	p.must(p.GetByTestId("user-turn").Last().GetByTestId("branch-prev").Click())
	p.must(expect.Locator(p.GetByTestId("user-message").Last()).ToHaveText("Read these"))
	files = p.GetByTestId("user-turn").Last().GetByTestId("attachment-file")
	p.must(expect.Locator(files).ToContainText([]string{"a.txt", "b.txt"}))
}

// On the new chat page a file over the limit says why on its chip, and
// files together over a message's limit are refused in place when sent:
// the page says why, keeps the words and the files to take out, and no
// conversation is recorded until the message fits.
func TestRefusedFilesOnTheNewChatPageSayWhyAndCreateNothing(t *testing.T) {
	t.Parallel()
	a := startApp(t, "SWEATPANTS_MAX_FILE_SIZE=1000", "SWEATPANTS_MAX_MESSAGE_FILES_SIZE=1500")
	p := openAgent(t, a, "assistant")
	p.attachFile("big.txt", "text/plain", []byte(strings.Repeat("x", 2000)))
	refused := p.Locator(`[data-testid=composer-file][data-state=refused]`)
	p.must(expect.Locator(refused.GetByTestId("composer-file-state")).ToContainText("big.txt"))
	p.must(expect.Locator(refused.GetByTestId("composer-file-state")).ToHaveAttribute("role", "alert"))
	p.must(refused.GetByRole("button").Click())

	p.attachFile("one.txt", "text/plain", []byte(strings.Repeat("1", 900)))
	p.attachFile("two.txt", "text/plain", []byte(strings.Repeat("2", 900)))
	p.must(expect.Locator(p.storedChips()).ToHaveCount(2))
	input := p.GetByTestId("composer-input")
	p.must(input.Fill("Both, please"))
	p.must(input.Press("Enter"))
	p.must(expect.Locator(p.GetByTestId("notice")).ToContainText("a message takes at most 1.5 KB"))
	p.must(expect.Locator(input).ToHaveValue("Both, please"))
	p.must(expect.Locator(p.storedChips()).ToHaveCount(2))
	p.must(expect.Locator(p.Locator("#conv-list a")).ToHaveCount(0))

	p.must(p.GetByRole("button", playwright.PageGetByRoleOptions{Name: "Remove two.txt"}).Click())
	p.send("Both, please")
	p.must(expect.Locator(p.GetByTestId("assistant-message")).ToHaveCount(1))
	p.must(expect.Locator(p.GetByTestId("attachment-file")).ToHaveText([]string{"one.txt 900 bytes"}))
	p.must(expect.Locator(p.Locator("#conv-list a")).ToHaveCount(1))
}

// A first message sent while its file is still uploading waits for it
// and goes with it, rather than leaving the page without it.
func TestTheFirstMessageWaitsForItsFileToUpload(t *testing.T) {
	t.Parallel()
	a := startApp(t)
	p := openAgent(t, a, "assistant")
	held := make(chan playwright.Route, 1)
	p.must(p.Route("**/files", func(r playwright.Route) { held <- r }))
	p.attachFile("notes.txt", "text/plain", []byte("buy milk\n"))
	// The upload starts once the page's modules have loaded (a file picked
	// before then is sent when they do), which on a busy machine takes a
	// while: the deadline is there to end a test that hangs, not to time
	// the page.
	var upload playwright.Route
	select {
	case upload = <-held:
	case <-time.After(time.Minute):
		t.Fatal("the file was not uploaded within a minute")
	}
	p.must(expect.Locator(p.GetByTestId("composer-file-state")).ToContainText("uploading"))
	input := p.GetByTestId("composer-input")
	p.must(input.Fill("Here are my notes"))
	p.must(input.Press("Enter"))
	p.must(upload.Continue())
	p.must(expect.Page(p.Page).ToHaveURL(regexp.MustCompile(`/c/[0-9a-f]+$`)))
	p.must(expect.Locator(p.GetByTestId("user-message")).ToHaveText("Here are my notes"))
	p.must(expect.Locator(p.GetByTestId("attachment-file")).ToContainText("notes.txt"))
}

// Several files picked or dropped at once on the new chat page of a fresh
// browser (no session yet) all go with the first message: the page's
// uploads share one session however many start together, so none is
// refused as another's and none leaves the composer.
func TestSeveralFilesAtOnceOnAFreshNewChatPageAllGoWithTheFirstMessage(t *testing.T) {
	t.Parallel()
	names := []string{"a.txt", "b.txt", "c.txt", "d.txt", "e.txt", "f.txt"}
	for _, how := range []string{"picked", "dropped"} {
		t.Run(how, func(t *testing.T) {
			model := llmtest.NewServer(t, llmtest.Text("Six files."))
			a := startApp(t, "SWEATPANTS_PROVIDER=openai", "OPENAI_API_KEY=test", "OPENAI_BASE_URL="+model.URL)
			p := &chatPage{t: t, Page: newPage(t)}
			_, err := p.Goto(a.URL + "/")
			p.must(err)
			p.must(expect.Locator(p.GetByTestId("composer-input")).ToBeVisible())
			if how == "picked" {
				var picked []playwright.InputFile
				for _, n := range names {
					picked = append(picked, playwright.InputFile{Name: n, MimeType: "text/plain", Buffer: []byte("file " + n + "\n")})
				}
				p.must(p.GetByTestId("attach-input").SetInputFiles(picked))
			} else {
				p.dropFiles("#composer", names)
			}
			p.must(expect.Locator(p.storedChips()).ToHaveCount(len(names)))

			p.send("What is in them?")
			p.must(expect.Locator(p.lastAssistant()).ToHaveText("Six files."))
			p.must(expect.Locator(p.GetByTestId("user-turn").GetByTestId("attachment-file")).ToHaveCount(len(names)))
			got := lastUserContent(t, model)
			for _, n := range names {
				if !strings.Contains(got, "file "+n) {
					t.Errorf("the model was given %q, want %s in it", got, n)
				}
			}
		})
	}
}

// dropFiles drops text files named names, at once, on the element
// selector finds, each holding "file NAME".
func (p *chatPage) dropFiles(selector string, names []string) {
	p.t.Helper()
	_, err := p.Locator(selector).Evaluate(`(el, names) => {
		const dt = new DataTransfer()
		for (const n of names) dt.items.add(new File(['file ' + n + '\n'], n, { type: 'text/plain' }))
		for (const type of ['dragover', 'drop']) {
			el.dispatchEvent(new DragEvent(type, { dataTransfer: dt, bubbles: true, cancelable: true }))
		}
	}`, names)
	p.must(err)
}

// Files picked or dropped before the page's scripts have loaded (they are
// deferred; on a slow link or a busy machine the page is usable a while
// before them) are sent once they have, not lost: a second pick keeps the
// first, and a drop neither replaces them nor takes the browser away to
// open the file.
func TestFilesPickedBeforeThePageScriptsLoadedAreSent(t *testing.T) {
	t.Parallel()
	a := startApp(t)
	p := &chatPage{t: t, Page: newPage(t)}
	held := make(chan playwright.Route, 1)
	p.must(p.Route("**/static/files.js", func(r playwright.Route) { held <- r }))
	_, err := p.Goto(a.URL+"/", playwright.PageGotoOptions{WaitUntil: playwright.WaitUntilStateCommit})
	p.must(err)
	var script playwright.Route
	select {
	case script = <-held:
	case <-time.After(time.Minute):
		t.Fatal("the page did not ask for files.js within a minute")
	}
	p.attachFile("notes.txt", "text/plain", []byte("buy milk\n"))
	p.attachFile("list.txt", "text/plain", []byte("eggs\n"))
	p.dropFiles("#composer", []string{"dropped.txt"})
	p.must(p.Unroute("**/static/files.js")) // the conversation's page loads it too
	p.must(script.Continue())
	p.must(expect.Locator(p.storedChips()).ToHaveCount(3))
	p.send("Here are my notes")
	files := p.GetByTestId("attachment-file")
	p.must(expect.Locator(files).ToHaveCount(3))
	p.must(expect.Locator(files.First()).ToContainText("notes.txt"))
	p.must(expect.Locator(files.Nth(1)).ToContainText("list.txt"))
	p.must(expect.Locator(files.Last()).ToContainText("dropped.txt"))
}
