package e2e

import (
	"regexp"
	"strings"
	"testing"

	"github.com/playwright-community/playwright-go"
)

// startWith opens the page of a new conversation with agent in p's
// browser session and sends text, which records it and opens its page.
func (p *chatPage) startWith(a *app, agent, text string) string {
	p.t.Helper()
	_, err := p.Goto(a.URL + "/new?agent=" + agent)
	p.must(err)
	p.send(text)
	p.must(expect.Locator(p.lastAssistant()).ToBeVisible())
	return p.URL()
}

// sidebarTitles are the conversations the sidebar lists, in order.
func (p *chatPage) sidebarTitles() playwright.Locator {
	return p.GetByTestId("conv-list").Locator(".conv-link")
}

// postAs sends a form to path with page's cookies and returns the status.
func postAs(t *testing.T, page playwright.Page, url string, form map[string]any) int {
	t.Helper()
	res, err := page.Request().Post(url, playwright.APIRequestContextPostOptions{Form: form,
		MaxRedirects: playwright.Int(0)})
	if err != nil {
		t.Fatal(err)
	}
	return res.Status()
}

// A conversation is renamed in place, under its header. A name that is
// empty or too long is refused there, with what was typed and why, and
// nothing changes; the name chosen then stays, whatever is sent next.
// Another browser cannot rename it.
func TestRenameAConversation(t *testing.T) {
	t.Parallel()
	a := startApp(t)
	p := &chatPage{t: t, Page: newPage(t)}
	url := p.startWith(a, "assistant", "What is the weather in Lisbon?")
	title := p.GetByTestId("conversation-title")
	p.must(expect.Locator(title).ToHaveText("What is the weather in Lisbon?"))

	// Another browser, with a conversation of its own, is told there is
	// no such conversation.
	other := &chatPage{t: t, Page: newPage(t)}
	other.startWith(a, "assistant", "Hello")
	if got := postAs(t, other, url+"/rename", map[string]any{"title": "Mine"}); got != 404 {
		t.Errorf("another session renames: status %d, want 404", got)
	}

	p.must(p.GetByTestId("rename").Click())
	input := p.GetByTestId("rename-input")
	p.must(expect.Locator(input).ToBeFocused())
	p.must(expect.Locator(input).ToHaveValue("What is the weather in Lisbon?"))
	for _, tc := range []struct{ typed, problem string }{
		{"   ", "Type a name for the conversation."},
		{strings.Repeat("a", 121), "That name is 121 characters long; the limit is 120."},
	} {
		p.must(input.Fill(tc.typed))
		res, err := p.ExpectResponse(regexp.MustCompile(`/rename$`), func() error { return p.GetByTestId("rename-save").Click() })
		p.must(err)
		if res.Status() != 400 {
			t.Errorf("rename to %q: status %d, want 400", tc.typed, res.Status())
		}
		p.must(expect.Locator(p.GetByTestId("rename-problem")).ToHaveText(tc.problem))
		p.must(expect.Locator(input).ToHaveValue(tc.typed))
		p.must(expect.Locator(input).ToHaveAttribute("aria-invalid", "true"))
		p.must(expect.Locator(title).ToHaveText("What is the weather in Lisbon?"))
	}

	p.must(input.Fill("  Lisbon,\n sunny  "))
	p.must(p.GetByTestId("rename-save").Click())
	p.must(expect.Page(p.Page).ToHaveURL(url))
	p.waitForStream()
	for _, where := range []playwright.Locator{title, p.sidebarTitles().First()} {
		p.must(expect.Locator(where).ToHaveText("Lisbon, sunny"))
	}
	p.must(expect.Page(p.Page).ToHaveTitle("Lisbon, sunny · Sweatpants"))
	p.must(expect.Locator(p.GetByTestId("rename-form")).ToBeHidden())

	// The name is the user's now: an edit of the first message, which
	// titles a conversation not named, leaves it.
	p.must(p.GetByTestId("edit-message").First().Click())
	p.must(p.GetByTestId("edit-input").First().Fill("What is the weather in Paris?"))
	p.must(p.GetByTestId("edit-send").First().Click())
	p.must(expect.Locator(p.lastAssistant()).ToContainText("Paris"))
	_, err := p.Reload()
	p.must(err)
	p.waitForStream()
	p.must(expect.Locator(title).ToHaveText("Lisbon, sunny"))
}

// A conversation is deleted after a confirmation, with everything it
// recorded (store.TestDeleteConversationTakesItsTreeAndReflog checks the
// rows): it leaves the sidebar, its address is a page that says it is not
// there, and the browser goes on to its next conversation. Another browser
// cannot delete it.
func TestDeleteAConversation(t *testing.T) {
	t.Parallel()
	a := startApp(t)
	p := &chatPage{t: t, Page: newPage(t)}
	keep := p.startWith(a, "assistant", "What is the weather in Paris?")
	gone := p.startWith(a, "assistant", "What is the weather in Lisbon?")
	p.must(expect.Locator(p.sidebarTitles()).ToHaveCount(2))

	other := &chatPage{t: t, Page: newPage(t)}
	other.startWith(a, "assistant", "Hello")
	if got := postAs(t, other, gone+"/delete", nil); got != 404 {
		t.Errorf("another session deletes: status %d, want 404", got)
	}

	// A change of mind keeps it.
	confirm := p.GetByTestId("delete-confirm")
	p.must(expect.Locator(confirm).ToBeHidden())
	p.must(p.GetByTestId("delete").Click())
	p.must(expect.Locator(confirm).ToContainText("Delete “What is the weather in Lisbon?” with all its versions"))
	p.must(expect.Locator(p.GetByTestId("delete-cancel")).ToBeFocused())
	p.must(p.GetByTestId("delete-cancel").Click())
	p.must(expect.Locator(confirm).ToBeHidden())
	p.must(expect.Locator(p.sidebarTitles()).ToHaveCount(2))

	// A second tab on it is told.
	tab := &chatPage{t: t, Page: newPageIn(t, p.Context())}
	_, err := tab.Goto(gone)
	tab.must(err)
	tab.waitForStream()

	p.must(p.GetByTestId("delete").Click())
	p.must(p.GetByTestId("delete-for-good").Click())
	p.must(expect.Page(p.Page).ToHaveURL(keep))
	tab.must(expect.Locator(tab.GetByTestId("notice")).ToHaveText("This conversation was deleted."))
	p.must(expect.Locator(p.sidebarTitles()).ToHaveText([]string{"What is the weather in Paris?"}))

	res, err := p.Goto(gone)
	p.must(err)
	if res.Status() != 404 {
		t.Errorf("the deleted conversation's page: status %d, want 404", res.Status())
	}
	p.must(expect.Locator(p.GetByTestId("not-found")).ToBeVisible())
	if got := postAs(t, p, gone+"/delete", nil); got != 404 {
		t.Errorf("delete again: status %d, want 404", got)
	}
}

// The sidebar's search finds conversations by their title and by what was
// said in them, as the user types; clearing it lists them all again.
func TestSearchConversations(t *testing.T) {
	t.Parallel()
	a := startApp(t)
	p := &chatPage{t: t, Page: newPage(t)}
	p.startWith(a, "assistant", "What is the weather in Lisbon?")
	p.startWith(a, "assistant", "What is the weather in Paris?")
	p.startWith(a, "assistant", "Hello")
	p.send("Tell me about kangaroos")
	p.must(expect.Locator(p.GetByTestId("assistant-message")).ToHaveCount(2))
	all := []string{"Hello", "What is the weather in Paris?", "What is the weather in Lisbon?"}
	p.must(expect.Locator(p.sidebarTitles()).ToHaveText(all))

	search := p.GetByTestId("conv-search")
	p.must(search.Fill("PARIS"))
	p.must(expect.Locator(p.sidebarTitles()).ToHaveText([]string{"What is the weather in Paris?"}))
	p.must(search.Fill("kangaroo")) // said in the conversation, not in its title
	p.must(expect.Locator(p.sidebarTitles()).ToHaveText([]string{"Hello"}))
	p.must(expect.Locator(p.sidebarTitles().First()).ToHaveAttribute("aria-current", "page"))
	p.must(search.Fill("weather in"))
	p.must(expect.Locator(p.sidebarTitles()).ToHaveText(all[1:]))
	p.must(search.Fill("<b>nothing</b>"))
	p.must(expect.Locator(p.GetByTestId("conv-none")).ToHaveText("No conversation mentions “<b>nothing</b>”."))
	p.must(expect.Locator(p.sidebarTitles()).ToHaveCount(0))
	p.must(search.Fill(""))
	p.must(expect.Locator(p.sidebarTitles()).ToHaveText(all))
}

// Opening new chats records nothing: a conversation is recorded with its
// first message, so no empty "New conversation" piles up in the sidebar.
func TestNewChatsThatSayNothingLeaveNoConversation(t *testing.T) {
	t.Parallel()
	a := startApp(t)
	p := &chatPage{t: t, Page: newPage(t)}
	_, err := p.Goto(a.URL + "/")
	p.must(err)
	for range 3 {
		p.must(p.GetByTestId("new-chat").Click())
		p.must(expect.Locator(p.GetByTestId("conversation-title")).ToHaveText("New conversation"))
	}
	p.must(expect.Locator(p.sidebarTitles()).ToHaveCount(0))
	p.send("What is the weather in Lisbon?")
	p.must(p.GetByTestId("new-chat").Click())
	p.must(p.GetByTestId("new-chat").Click())
	p.must(expect.Locator(p.sidebarTitles()).ToHaveText([]string{"What is the weather in Lisbon?"}))
}

// A conversation not started yet offers the agent's starters; one click
// sends one.
func TestAStarterSendsItself(t *testing.T) {
	t.Parallel()
	a := startApp(t)
	p := &chatPage{t: t, Page: newPage(t)}
	_, err := p.Goto(a.URL + "/new?agent=chat")
	p.must(err)
	p.must(expect.Locator(p.GetByTestId("starter")).ToHaveText([]string{"Book a flight to Lisbon next Friday", "What's the weather here?"}))
	_, err = p.Goto(a.URL + "/new?agent=assistant")
	p.must(err)
	p.must(p.GetByTestId("starter").GetByText("What's the weather in Lisbon?").Click())
	p.must(expect.Page(p.Page).ToHaveURL(regexp.MustCompile(`/c/[0-9a-f]+$`)))
	p.must(expect.Locator(p.GetByTestId("user-message")).ToHaveText([]string{"What's the weather in Lisbon?"}))
	p.must(expect.Locator(p.lastAssistant()).ToContainText("Lisbon"))
	p.must(expect.Locator(p.GetByTestId("starter")).ToHaveCount(0))
}
