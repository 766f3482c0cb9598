package e2e

import (
	"net/url"
	"testing"
)

// TestOperatorLooksAtAnotherAccountsConversation: an operator (named by
// SWEATPANTS_OPERATORS) opens another person's conversation's tree and
// page, sees them read-only under a banner saying the look is recorded,
// with no composer, and the operators' page lists both looks.
func TestOperatorLooksAtAnotherAccountsConversation(t *testing.T) {
	t.Parallel()
	a, issuer := startSigninApp(t, "SWEATPANTS_OPERATORS=test-user2@zitadel.ch")
	u, _ := url.Parse(issuer)

	owner := &chatPage{t: t, Page: newPage(t)}
	if _, err := owner.Goto(a.URL + "/signin"); err != nil {
		t.Fatal(err)
	}
	owner.signInAt("test-user@" + u.Hostname())
	owner.must(expect.Locator(owner.GetByTestId("signed-in-as")).ToHaveText("Test User"))
	owner.send("Hello, only I should write here")
	conv := owner.convPath()

	op := &chatPage{t: t, Page: newPage(t)}
	if _, err := op.Goto(a.URL + "/signin"); err != nil {
		t.Fatal(err)
	}
	op.signInAt("test-user2")
	op.must(expect.Locator(op.GetByTestId("signed-in-as")).ToHaveText("Test User2"))

	if _, err := op.Goto(a.URL + conv + "/tree"); err != nil {
		t.Fatal(err)
	}
	op.must(expect.Locator(op.GetByTestId("looking-banner")).ToHaveText("Looking as an operator — read-only; this look is recorded"))
	op.must(expect.Locator(op.GetByTestId("reflog-entry").First()).ToBeVisible())
	op.must(expect.Locator(op.GetByTestId("gc")).ToHaveCount(0))

	if _, err := op.Goto(a.URL + conv); err != nil {
		t.Fatal(err)
	}
	op.waitForStream()
	op.must(expect.Locator(op.GetByTestId("looking-banner")).ToBeVisible())
	op.must(expect.Locator(op.GetByTestId("user-message").First()).ToHaveText("Hello, only I should write here"))
	op.must(expect.Locator(op.GetByTestId("composer-input")).ToHaveCount(0))

	if _, err := op.Goto(a.URL + "/operator/looks"); err != nil {
		t.Fatal(err)
	}
	id := conv[len("/c/"):]
	op.must(expect.Locator(op.Locator(`[data-testid=look][data-what=tree][data-conversation="` + id + `"]`).First()).ToBeVisible())
	op.must(expect.Locator(op.Locator(`[data-testid=look][data-what=page][data-conversation="` + id + `"]`).First()).ToBeVisible())
	op.must(expect.Locator(op.GetByTestId("look-operator").First()).ToContainText("test-user2@zitadel.ch"))
	// The owner is no operator: the page is not there for them.
	if res, err := owner.Goto(a.URL + "/operator/looks"); err != nil || res.Status() != 404 {
		t.Errorf("the owner's GET /operator/looks: %v %v, want 404", res, err)
	}
}
