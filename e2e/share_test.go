package e2e

import (
	"regexp"
	"testing"
)

// A conversation's owner makes a read-only link from its header; a reader
// in another browser, with no session, sees the branch as it stood — the
// messages, the approval and the tool call — and nothing said after, with
// nothing on the page that acts; revoked, the link is gone. Both pages
// pass the accessibility check.
func TestASharedLinkShowsTheBranchAsItStood(t *testing.T) {
	t.Parallel()
	a := startApp(t)
	p := openShowcase(t, a)
	q := p.start("approve a tool call", "approval")
	p.must(q.GetByTestId("approval-once").Click())
	p.replied("Archived the drafts older than 30 days into Archive (allowed once).")
	conv := p.URL()

	owner := &chatPage{t: t, Page: newPageIn(t, p.Context())}
	_, err := owner.Goto(conv)
	owner.must(err)
	owner.must(owner.GetByTestId("shares-link").Click())
	owner.must(expect.Page(owner.Page).ToHaveURL(regexp.MustCompile(`/shares$`)))
	checkAccessible(t, owner.Page, "the page of shared links")
	owner.must(owner.GetByTestId("share-make").Click())
	link, err := owner.GetByTestId("share-url").GetAttribute("href")
	owner.must(err)
	if !regexp.MustCompile(`^/s/[A-Za-z0-9_-]{43}$`).MatchString(link) {
		t.Fatalf("the link made is %q", link)
	}

	q = p.ask("pick a colour", "choice")
	p.must(q.GetByTestId("choice-green").Check())
	p.must(q.GetByTestId("elicit-submit").Click())
	p.replied("The theme is now green.")

	reader := &chatPage{t: t, Page: newPage(t)}
	_, err = reader.Goto(a.URL + link)
	reader.must(err)
	items := reader.GetByTestId("shared-item")
	reader.must(expect.Locator(items.First()).ToHaveText(regexp.MustCompile(`approve a tool call`)))
	reader.must(expect.Locator(reader.GetByTestId("shared-tool")).ToHaveCount(1))
	reader.must(expect.Locator(reader.GetByTestId("shared-tool")).ToContainText("approveArchive"))
	reader.must(expect.Locator(items.Last()).ToContainText("Archived the drafts older than 30 days"))
	reader.must(expect.Locator(reader.GetByTestId("shared-items")).Not().ToContainText("pick a colour"))
	reader.must(expect.Locator(reader.GetByTestId("shared-items")).Not().ToContainText("green"))
	reader.must(expect.Locator(reader.Locator("form, button, textarea, input")).ToHaveCount(0))
	checkAccessible(t, reader.Page, "a shared link's page")
	cookies, err := reader.Context().Cookies()
	reader.must(err)
	if len(cookies) != 0 {
		t.Errorf("reading the link gave the reader cookies: %v", cookies)
	}

	owner.must(owner.GetByTestId("share-revoke").Click())
	owner.must(expect.Locator(owner.GetByTestId("shares-none")).ToBeVisible())
	_, err = reader.Reload()
	reader.must(err)
	reader.must(expect.Locator(reader.GetByTestId("not-found")).ToContainText("no such shared link"))
}
