package transport

import (
	"context"
	"fmt"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/sweatpants-go/sweatpants/examples/demo"
	"github.com/sweatpants-go/sweatpants/internal/chat"
	"github.com/sweatpants-go/sweatpants/internal/kindset"
	"github.com/sweatpants-go/sweatpants/internal/offline"
	"github.com/sweatpants-go/sweatpants/internal/operator"
	"github.com/sweatpants-go/sweatpants/internal/registry"
	"github.com/sweatpants-go/sweatpants/internal/store"
	"github.com/sweatpants-go/sweatpants/internal/tree"
)

// The provider's example users' emails: user1 is made the operator.
const (
	operatorEmail = "test-user@zitadel.ch"
	user2Email    = "test-user2@zitadel.ch"
)

// newOperatorApp is newSigninApp with the operator page, user1 its
// operator.
func newOperatorApp(t *testing.T) (*testApp, *provider) {
	a, p := newSigninApp(t, nil)
	a.server.signin.Operators = Operators{Emails: []string{operatorEmail}, Groups: []string{"ops"}}
	a.server.signin.Desk = operator.New(a.db)
	a.server.signinRecheck = 20 * time.Millisecond
	return a, p
}

// accountID is the id of the account with email.
func accountID(t *testing.T, a *testApp, email string) string {
	t.Helper()
	accounts, err := a.db.OperatorAccounts(context.Background(), 100, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, acc := range accounts {
		if acc.Email == email {
			return acc.ID
		}
	}
	t.Fatalf("no account of %s", email)
	return ""
}

// TestTheOperatorPageIsNotFoundForAnyoneButAnOperator: signed out, signed
// in as a user, with a forged sign-in cookie, or claiming an operators'
// group in a header the server does not trust, the page and its changes
// are not found, and nothing is changed.
func TestTheOperatorPageIsNotFoundForAnyoneButAnOperator(t *testing.T) {
	a, p := newOperatorApp(t)
	user := a.browser(t)
	user.signIn(p, user2)
	id := accountID(t, a, user2Email)
	forged := a.browser(t)
	appURL, _ := url.Parse(a.srv.URL)
	forged.c.Jar.SetCookies(appURL, []*http.Cookie{{Name: signinCookie, Value: strings.Repeat("ab", 16)}})
	for name, b := range map[string]*browser{"signed out": a.browser(t), "a user": user, "a forged sign-in": forged} {
		for _, h := range [][]string{nil, {"X-Forwarded-Groups", "ops", "X-Forwarded-User", "x", "X-Forwarded-Email", operatorEmail}} {
			if code, _ := b.do("GET", "/operator", "", "", h...); code != http.StatusNotFound {
				t.Errorf("%s, headers %v: GET /operator = %d, want 404", name, h, code)
			}
			if code, _ := b.do("POST", "/operator/accounts/"+id+"/disable", "", "", h...); code != http.StatusNotFound {
				t.Errorf("%s, headers %v: POST disable = %d, want 404", name, h, code)
			}
		}
	}
	// No other method tells that the page is there (405).
	for _, m := range []string{"POST", "PUT", "DELETE"} {
		if code, _ := user.do(m, "/operator", "", ""); code != http.StatusNotFound {
			t.Errorf("a user's %s /operator = %d, want 404", m, code)
		}
	}
	if code, _ := user.do("GET", "/operator/accounts/"+id+"/disable", "", ""); code != http.StatusNotFound {
		t.Errorf("a user's GET of disable = %d, want 404", code)
	}
	if code, _ := user.do("GET", "/settings/permissions", "", ""); code != http.StatusOK {
		t.Errorf("the user's own page after the refused disables: %d, want 200 (still signed in)", code)
	}
}

// TestAnOperatorsGroupCountsFromATrustedProxyOnly: behind an
// authenticating proxy, X-Forwarded-Groups names an operator only when the
// trusted proxy sends it.
func TestAnOperatorsGroupCountsFromATrustedProxyOnly(t *testing.T) {
	a := newTestAppWith(t, chat.Config{Assistants: registry.New(demo.Agents(demo.Options{})...), Kinds: kindset.New(demo.Kinds()...), Model: offline.New()},
		func(db *store.DB, cfg *Config) {
			cfg.TrustedProxies = []netip.Prefix{netip.MustParsePrefix("127.0.0.2/32")}
			cfg.SignIn = SignIn{Accounts: testAccounts{db, nil}, TrustedHeader: true, Operators: Operators{Groups: []string{"ops"}}, Desk: operator.New(db)}
		})
	ops := []string{"X-Forwarded-User", "ann", "X-Forwarded-Groups", "ops"}
	if code, _ := a.browser(t).do("GET", "/operator", "", "", ops...); code != http.StatusNotFound {
		t.Errorf("the operators' group, not from the proxy: %d, want 404", code)
	}
	if code, _ := a.browser(t).elsewhere("127.0.0.2").do("GET", "/operator", "", "", "X-Forwarded-User", "bob", "X-Forwarded-Groups", "staff"); code != http.StatusNotFound {
		t.Errorf("another group, from the proxy: %d, want 404", code)
	}
	if code, page := a.browser(t).elsewhere("127.0.0.2").do("GET", "/operator", "", "", ops...); code != http.StatusOK || !strings.Contains(page, `data-testid="operator-page"`) {
		t.Errorf("the operators' group, from the proxy: %d, want 200 and the page", code)
	}
}

// TestAnOperatorSeesOthersConversationsAndDisablesAnAccount: the operator
// sees another account's conversation with the approval it waits on and
// the feedback given in another; cannot disable themself; disabling the
// account cuts its open stream, and its next request owns nothing.
func TestAnOperatorSeesOthersConversationsAndDisablesAnAccount(t *testing.T) {
	a, p := newOperatorApp(t)
	user, op := a.browser(t), a.browser(t)
	user.signIn(p, user2)
	op.signIn(p, p.user1())
	waits := user.start("showcase", "approve a tool call")
	waitFor(t, "the approval", func() bool {
		nodes, err := a.db.Nodes(context.Background(), waits)
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range nodes {
			if n.Kind == tree.ElicitRequest {
				return true
			}
		}
		return false
	})
	rated, reply, _ := replied(t, a, user)
	if code, body := user.do("POST", fmt.Sprintf("/c/%s/replies/%d/feedback", rated, reply), "application/x-www-form-urlencoded", "rating=down&comment=too+terse"); code >= 300 {
		t.Fatalf("feedback = %d %s", code, body)
	}

	code, page := op.do("GET", "/operator", "", "")
	if code != http.StatusOK {
		t.Fatalf("the operator's GET /operator = %d", code)
	}
	for what, want := range map[string]string{
		"the waiting conversation": `data-testid="waiting-conversation" data-conversation="` + waits + `"`,
		"its approval":             `data-testid="approval-badge"`,
		"the feedback":             `data-testid="feedback-comment">too terse<`,
		"the link to the tree":     `href="/c/` + waits + `/tree"`,
		"the user's account":       user2Email,
		"the looks page":           `href="/operator/looks"`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the page does not show %s (%s)", what, want)
		}
	}
	if _, home := op.do("GET", "/new", "", ""); !strings.Contains(home, `href="/operator" data-testid="operator-link"`) {
		t.Error("the operator's pages offer no link to the operator page")
	}
	if _, home := user.do("GET", "/new", "", ""); strings.Contains(home, `data-testid="operator-link"`) {
		t.Error("a user's pages link to the operator page")
	}

	self := accountID(t, a, operatorEmail)
	code, page = op.do("POST", "/operator/accounts/"+self+"/disable", "", "")
	if code != http.StatusBadRequest || !strings.Contains(page, "You cannot disable your own account") {
		t.Errorf("disabling oneself = %d, want 400 saying why", code)
	}
	if code, _ := op.do("POST", "/operator/accounts/nobody/disable", "", ""); code != http.StatusNotFound {
		t.Errorf("disabling an account there is not = %d, want 404", code)
	}

	stream := user.openStream("/c/" + waits + "/stream")
	if code, _ := op.do("POST", "/operator/accounts/"+accountID(t, a, user2Email)+"/disable", "", ""); code != http.StatusSeeOther {
		t.Fatalf("disable = %d, want 303", code)
	}
	select {
	case <-stream:
	case <-time.After(10 * time.Second):
		t.Fatal("the disabled account's stream is still open")
	}
	if code, _ := user.do("GET", "/c/"+waits, "", ""); code != http.StatusNotFound {
		t.Errorf("the disabled account's next request: %d, want 404", code)
	}
	if _, page := op.do("GET", "/operator", "", ""); !strings.Contains(page, `data-testid="enable-account"`) {
		t.Error("the page offers no Enable for the disabled account")
	}
}
