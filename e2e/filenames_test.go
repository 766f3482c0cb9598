package e2e

import (
	"strings"
	"testing"
	"time"

	"github.com/playwright-community/playwright-go"
)

// A file's chip shows its name as the server keeps it, while it uploads
// and once stored: never a path, never a right-to-left override that makes
// the name read as another.
func TestAFileChipShowsTheNameAsKept(t *testing.T) {
	t.Parallel()
	a := startApp(t)
	p := openChat(t, a)
	held := make(chan playwright.Route, 1)
	p.must(p.Route("**/files", func(r playwright.Route) { held <- r }))
	p.attachFile("../evil\u202Evsc.txt", "text/plain", []byte("a,b\n"))
	var upload playwright.Route
	select {
	case upload = <-held:
	case <-time.After(time.Minute):
		t.Fatal("the file was not uploaded within a minute")
	}
	chip := p.GetByTestId("composer-file").Locator(".name")
	p.must(expect.Locator(chip).ToHaveText("evilvsc.txt"))
	p.must(upload.Continue())
	p.must(p.Unroute("**/files"))
	p.must(expect.Locator(p.storedChips()).ToHaveCount(1))
	p.must(expect.Locator(chip).ToHaveText("evilvsc.txt"))
	p.must(expect.Locator(p.GetByRole("button", playwright.PageGetByRoleOptions{Name: "Remove evilvsc.txt"})).ToHaveCount(1))
}

// A file question dismissed while its file uploads stops the upload: the
// agent hears the dismissal, and no file is kept for it.
func TestDismissingAFileQuestionMidUploadKeepsNoFile(t *testing.T) {
	t.Parallel()
	a := startApp(t)
	p := openShowcase(t, a)
	q := p.ask("give you a file", "file")
	held := make(chan playwright.Route, 1)
	p.must(p.Route("**/files", func(r playwright.Route) { held <- r }))
	ended := make(chan string, 4) // how the upload's request ended
	over := func(how string) func(playwright.Request) {
		return func(r playwright.Request) {
			if strings.HasSuffix(r.URL(), "/files") {
				ended <- how
			}
		}
	}
	p.OnRequestFailed(over("failed"))
	p.OnRequestFinished(over("finished"))
	p.pickFile(q, "sales.csv", "text/csv", []byte("region,total\nnorth,12\n"))
	var upload playwright.Route
	select {
	case upload = <-held:
	case <-time.After(time.Minute):
		t.Fatal("the file was not uploaded within a minute")
	}
	p.must(expect.Locator(q.GetByTestId("elicit-stage")).ToContainText("Uploading sales.csv"))
	p.must(q.GetByTestId("elicit-cancel").Click())
	p.replied("You dismissed the question — I looked at no file.")
	_ = upload.Continue() // an upload the page stopped cannot go on, which is the point
	select {
	case <-ended:
	case <-time.After(time.Minute):
		t.Fatal("the upload neither finished nor failed within a minute")
	}
	if n := count(t, a, `SELECT COUNT(*) FROM uploads`); n != 0 {
		t.Errorf("%d files kept after the question was dismissed mid-upload, want 0", n)
	}
}
