package e2e

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/playwright-community/playwright-go"
)

// An agent asks for a file (the showcase's "Give a file"): the card says
// what it takes and why, the file picked is uploaded with its stages shown
// and handed to the agent, which reads it; what the question does not take
// is refused in the card, the question still waiting; declining and
// dismissing are answers as for any kind; a file of another session is
// not taken. One server serves every case, each its own browser session.
func TestAnAgentAsksForAFile(t *testing.T) {
	t.Parallel()
	a := startApp(t)
	run := func(name string, f func(t *testing.T)) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			f(t)
		})
	}

	run("given", func(t *testing.T) {
		p := openShowcase(t, a)
		q := p.ask("give you a file", "file")
		p.must(expect.Locator(q).ToContainText("The agent wants it to tell you what is in it."))
		p.must(expect.Locator(q.GetByTestId("file-takes")).ToHaveText("Takes text/csv, text/plain, text/markdown, application/json, .md, image/*, up to 5 MB."))
		// The upload's stage shows while it travels (held here until seen).
		held := make(chan playwright.Route, 1)
		p.must(p.Route("**/files", func(r playwright.Route) { held <- r }))
		p.pickFile(q, "sales.csv", "text/csv", []byte("region,total\nnorth,12\nsouth,30\n"))
		var upload playwright.Route
		select {
		case upload = <-held:
		case <-time.After(patience(10 * time.Second)):
			t.Fatal("the file was not uploaded")
		}
		p.must(expect.Locator(q.GetByTestId("elicit-stage")).ToHaveText("Uploading sales.csv (31 bytes)…"))
		p.must(upload.Continue())
		p.must(p.Unroute("**/files"))
		p.replied("You gave me sales.csv (text/csv, 31 bytes): a spreadsheet whose columns are region, total. The upload went: uploading → stored.")
		p.must(expect.Locator(p.lastAnswered().GetByTestId("elicit-answer")).ToHaveText("Sent sales.csv (31 bytes)"))

		// The event stream names the file the answer gave, with its URL, and
		// so does the inspector.
		if !p.streamHas(a, func(line string) bool {
			return strings.Contains(line, `"response":{"action":"accept"`) && strings.Contains(line, `"files":[{"id":"`) &&
				strings.Contains(line, `"name":"sales.csv","type":"text/csv","size":31,"url":"/files/`)
		}) {
			t.Error("the event stream does not name the file the answer gave")
		}
		ins := &chatPage{t: t, Page: newPageIn(t, p.Context())}
		_, err := ins.Goto(p.URL() + "/tree")
		ins.must(err)
		ins.waitForStream()
		answer := ins.Locator(`[data-testid=tree-node][data-kind=response]`).Last()
		ins.must(answer.Locator("summary").Click())
		ins.must(expect.Locator(answer.GetByTestId("node-files")).ToHaveText("sales.csv (text/csv, 31 bytes)"))
		href, err := answer.GetByTestId("node-file").GetAttribute("href")
		ins.must(err)
		if got := ins.fetchText(href); got != "region,total\nnorth,12\nsouth,30\n" {
			t.Errorf("the inspector's link serves %q", got)
		}

		// Giving another file instead goes on from there on a new branch.
		card := p.lastAnswered()
		p.must(card.GetByTestId("change-answer").Click())
		form := card.GetByTestId("change-form")
		p.pickFile(form, "notes.txt", "text/plain", []byte("one\ntwo\nthree\n"))
		p.must(expect.Locator(p.lastAssistant()).ToHaveText("You gave me notes.txt (text/plain, 14 bytes): 3 lines of text."))
		p.must(expect.Locator(card.GetByTestId("elicit-answer")).ToHaveText("Sent notes.txt (14 bytes)"))
		p.must(expect.Locator(card.GetByTestId("branch-index")).ToHaveText("2 / 2"))
		p.must(expect.Locator(form).ToBeHidden())
		p.must(card.GetByTestId("branch-prev").Click())
		p.must(expect.Locator(p.lastAssistant()).ToContainText("You gave me sales.csv"))
	})

	run("refused in the card", func(t *testing.T) {
		p := openShowcase(t, a)
		q := p.ask("give you a file", "file")
		// Over the question's limit: said at once, nothing sent.
		p.pickFile(q, "big.txt", "text/plain", bytes.Repeat([]byte("a line of text\n"), 6<<20/15+1))
		p.must(expect.Locator(q.GetByTestId("device-problem")).ToHaveText("big.txt is 6 MB; the most this question takes is 5 MB."))
		// A type the server keeps but the question does not take: uploaded,
		// its stage shown, and the answer refused beside the picker.
		p.pickFile(q, "paper.pdf", "application/pdf", []byte("%PDF-1.4\n1 0 obj << >> endobj\ntrailer << >>\n%%EOF\n"))
		p.must(expect.Locator(q.GetByTestId("elicit-stage")).ToHaveText("Received paper.pdf (50 bytes)."))
		p.must(expect.Locator(q.GetByTestId("error-id")).ToContainText("File is application/pdf; this question takes text/csv"))
		p.checkBothThemes("a file question with a refused file")
		// A type no one takes here: the server's reason, in the card.
		p.pickFile(q, "page.html", "text/html", []byte("<script>document.title='ran'</script>"))
		p.must(expect.Locator(q.GetByTestId("device-problem")).ToContainText("page.html"))
		p.must(expect.Locator(p.Locator("[data-testid=elicit][data-state=pending]")).ToHaveCount(1))
		// The question still takes a good file.
		p.pickFile(q, "notes.md", "text/markdown", []byte("# Notes\n\none\ntwo\n"))
		p.replied("You gave me notes.md (text/markdown, 17 bytes): 4 lines of text. The upload went: uploading → stored → uploading → stored.")
	})

	run("another session's file", func(t *testing.T) {
		other := openShowcase(t, a)
		id := other.upload("theirs.csv", "secret,1\n")
		p := openShowcase(t, a)
		q := p.ask("give you a file", "file")
		if got := p.postJSON(p.answerPath(q), fmt.Sprintf(`{"action":"accept","content":{"id":%q}}`, id)); got != http.StatusUnprocessableEntity {
			t.Fatalf("answering with another session's file: got %d, want 422", got)
		}
		p.must(expect.Locator(q.GetByTestId("error-id")).ToHaveText("File is not a file you uploaded"))
		p.must(q.GetByTestId("elicit-decline").Click())
		p.replied("You declined — I looked at no file.")
		p.must(p.ask("give you a file", "file").GetByTestId("elicit-cancel").Click())
		p.replied("You dismissed the question — I looked at no file.")
	})
}

// pickFile picks a file with question q's picker.
func (p *chatPage) pickFile(q playwright.Locator, name, mime string, content []byte) {
	p.t.Helper()
	p.must(q.GetByTestId("file-pick").SetInputFiles([]playwright.InputFile{{Name: name, MimeType: mime, Buffer: content}}))
}

// streamHas reports whether a line of the conversation's event stream,
// read as a client of it reads it (the page's session), satisfies match
// within ten seconds.
func (p *chatPage) streamHas(a *app, match func(line string) bool) bool {
	p.t.Helper()
	cookies, err := p.Context().Cookies(a.URL)
	p.must(err)
	ctx, cancel := context.WithTimeout(p.t.Context(), 10*time.Second) // a stream: read until the line, or this long
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, a.URL+p.convPath()+"/events", nil)
	p.must(err)
	for _, ck := range cookies {
		req.AddCookie(&http.Cookie{Name: ck.Name, Value: ck.Value})
	}
	events, err := http.DefaultClient.Do(req)
	p.must(err)
	defer events.Body.Close()
	sc := bufio.NewScanner(events.Body)
	for sc.Scan() {
		if match(sc.Text()) {
			return true
		}
	}
	return false
}

// fetchText fetches path from inside the page (its session) and returns
// the body.
func (p *chatPage) fetchText(path string) string {
	p.t.Helper()
	v, err := p.Evaluate(`async (path) => await (await fetch(path)).text()`, path)
	p.must(err)
	s, _ := v.(string)
	return s
}

// upload stores a file in the page's session as the page's scripts do,
// and returns its id.
func (p *chatPage) upload(name, content string) string {
	p.t.Helper()
	v, err := p.Evaluate(`async ([name, content]) => {
		const body = new FormData()
		body.append('file', new File([content], name))
		const res = await fetch('/files', { method: 'POST', body })
		return (await res.json())[0].id
	}`, []string{name, content})
	p.must(err)
	id, ok := v.(string)
	if !ok || id == "" {
		p.t.Fatalf("upload: %#v", v)
	}
	return id
}
