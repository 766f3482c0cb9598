package e2e

import (
	"net/http"
	"net/url"
	"regexp"
	"testing"

	"github.com/playwright-community/playwright-go"
)

// TestAnOperatorSeesAWaitingApprovalAndDisablesItsAccount: an operator
// (--operators names the provider's first user) signs in, finds another
// account's conversation on /operator with the approval it waits on,
// and disables that account: the other browser's page owns nothing from
// then on.
func TestAnOperatorSeesAWaitingApprovalAndDisablesItsAccount(t *testing.T) {
	t.Parallel()
	a, issuer := startSigninApp(t, "SWEATPANTS_OPERATORS=test-user@zitadel.ch")
	signIn := func(p *chatPage, user string) {
		t.Helper()
		if _, err := p.Goto(a.URL + "/signin"); err != nil {
			t.Fatal(err)
		}
		p.must(expect.Page(p.Page).ToHaveURL(regexp.MustCompile(`^` + regexp.QuoteMeta(issuer) + `/login/`)))
		p.signInAt(user)
		p.must(expect.Locator(p.GetByTestId("signed-in-as")).ToBeVisible())
	}

	user := &chatPage{t: t, Page: newPage(t)}
	signIn(user, "test-user2")
	if _, err := user.Goto(a.URL + "/new"); err != nil {
		t.Fatal(err)
	}
	if _, err := user.GetByTestId("new-chat-agent").SelectOption(playwright.SelectOptionValues{Values: &[]string{"showcase"}}); err != nil {
		t.Fatal(err)
	}
	user.must(user.GetByTestId("new-chat").Click())
	user.must(expect.Locator(user.Locator(".chat-header .agent")).ToHaveText("agent: showcase"))
	user.start("approve a tool call", "approval")
	conv := user.convPath()
	if res, err := user.Goto(a.URL + "/operator"); err != nil || res.Status() != http.StatusNotFound {
		t.Errorf("a user's /operator: %v %v, want 404", res, err)
	}
	if _, err := user.Goto(a.URL + conv); err != nil {
		t.Fatal(err)
	}
	user.waitForStream()

	op := &chatPage{t: t, Page: newPage(t)}
	u, _ := url.Parse(issuer)
	signIn(op, "test-user@"+u.Hostname())
	op.must(op.GetByTestId("operator-link").Click())
	op.must(expect.Page(op.Page).ToHaveURL(a.URL + "/operator"))
	waiting := op.Locator(`[data-testid=waiting-conversation][data-conversation="` + conv[len("/c/"):] + `"]`)
	op.must(expect.Locator(waiting.GetByTestId("approval-badge")).ToBeVisible())
	op.must(expect.Locator(waiting).ToContainText("test-user2@zitadel.ch"))
	op.must(expect.Locator(waiting.GetByTestId("operator-conversation")).ToHaveAttribute("href", conv+"/tree"))
	checkAccessible(t, op.Page, "the operator page")

	row := op.Locator(`[data-testid=account-row]`, playwright.PageLocatorOptions{HasText: "test-user2@zitadel.ch"})
	op.must(row.GetByTestId("disable-account").Click())
	op.must(expect.Locator(row.GetByTestId("account-disabled")).ToBeVisible())
	op.must(expect.Locator(row.GetByTestId("enable-account")).ToBeVisible())

	// The user's page owns nothing: reloaded, its conversation is not
	// found, and the page offers to sign in again.
	if res, err := user.Reload(); err != nil || res.Status() != http.StatusNotFound {
		t.Errorf("the disabled account's page, reloaded: %v %v, want 404", res, err)
	}
	if _, err := user.Goto(a.URL + "/new"); err != nil {
		t.Fatal(err)
	}
	user.must(expect.Locator(user.GetByTestId("sign-in")).ToBeVisible())
}
