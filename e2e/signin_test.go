package e2e

import (
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"regexp"
	"syscall"
	"testing"

	"github.com/zitadel/oidc/v3/example/server/exampleop"
	opstorage "github.com/zitadel/oidc/v3/example/server/storage"
)

// startProvider runs a real OpenID provider (zitadel's example provider)
// in the test, with the web client "sweatpants" whose redirect is
// redirect; it returns the issuer URL.
func startProvider(t *testing.T, redirect string) string {
	t.Helper()
	var op http.Handler
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { op.ServeHTTP(w, r) }))
	t.Cleanup(srv.Close)
	clients := map[string]*opstorage.Client{"sweatpants": opstorage.WebClient("sweatpants", "s3cret", redirect)}
	op = exampleop.SetupServer(srv.URL, opstorage.NewStorageWithClients(opstorage.NewUserStore(srv.URL), clients), nil, false)
	return srv.URL
}

// startSigninApp starts the binary with sign-in by a provider the test
// runs, and env beside, and returns it and the provider's issuer URL.
func startSigninApp(t *testing.T, env ...string) (*app, string) {
	t.Helper()
	// The redirect names the app's address, so the address is chosen first.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	issuer := startProvider(t, "http://"+addr+"/signin/callback")
	a := &app{t: t, bin: binPath, db: filepath.Join(t.TempDir(), "data", "e2e.db"), addr: addr}
	a.start(append([]string{"SWEATPANTS_OIDC_ISSUER=" + issuer, "SWEATPANTS_OIDC_CLIENT_ID=sweatpants", "SWEATPANTS_OIDC_CLIENT_SECRET=s3cret",
		"SWEATPANTS_OIDC_REDIRECT_URL=http://" + addr + "/signin/callback"}, env...)...)
	t.Cleanup(func() {
		a.stop(syscall.SIGTERM)
		if t.Failed() {
			t.Logf("server log:\n%s", a.log())
		}
	})
	return a, issuer
}

// signIn signs the page in as user at the provider's login page, which the
// page is on.
func (p *chatPage) signInAt(user string) {
	p.t.Helper()
	p.must(p.Locator("#username").Fill(user))
	p.must(p.Locator("#password").Fill("verysecure"))
	p.must(p.Locator("button[type=submit]").Click())
}

// TestSignInTwoBrowsersOfOneAccount: a browser signs in with the code flow
// (PKCE) at a real provider and keeps the conversation it started before;
// a second browser of the account sees it, live; another account does not.
func TestSignInTwoBrowsersOfOneAccount(t *testing.T) {
	t.Parallel()
	a, issuer := startSigninApp(t)
	u, _ := url.Parse(issuer)
	user1 := "test-user@" + u.Hostname()

	first := &chatPage{t: t, Page: newPage(t)}
	if _, err := first.Goto(a.URL + "/new"); err != nil {
		t.Fatal(err)
	}
	first.send("Hello before signing in")
	conv := first.convPath()
	first.must(first.GetByTestId("sign-in").Click())
	first.must(expect.Page(first.Page).ToHaveURL(regexp.MustCompile(`^` + regexp.QuoteMeta(issuer) + `/login/`)))
	first.signInAt(user1)
	// Home is the newest conversation: the one started before signing in.
	first.must(expect.Page(first.Page).ToHaveURL(a.URL + conv))
	first.must(expect.Locator(first.GetByTestId("signed-in-as")).ToHaveText("Test User"))
	first.waitForStream()

	second := &chatPage{t: t, Page: newPage(t)}
	if _, err := second.Goto(a.URL + "/signin"); err != nil {
		t.Fatal(err)
	}
	second.signInAt(user1)
	second.must(expect.Page(second.Page).ToHaveURL(a.URL + conv))
	second.waitForStream()
	second.must(expect.Locator(second.GetByTestId("user-message").First()).ToHaveText("Hello before signing in"))
	// What one browser sends, the other shows as it happens.
	first.send("Sent from the first browser")
	second.must(expect.Locator(second.GetByTestId("user-message").Last()).ToHaveText("Sent from the first browser"))

	other := &chatPage{t: t, Page: newPage(t)}
	if _, err := other.Goto(a.URL + "/signin"); err != nil {
		t.Fatal(err)
	}
	other.signInAt("test-user2")
	other.must(expect.Locator(other.GetByTestId("signed-in-as")).ToHaveText("Test User2"))
	res, err := other.Goto(a.URL + conv)
	if err != nil {
		t.Fatal(err)
	}
	if res.Status() != http.StatusNotFound {
		t.Errorf("another account's GET %s: %d, want 404", conv, res.Status())
	}

	// Signing out ends the first browser's sign-in only.
	if _, err := first.Goto(a.URL + conv); err != nil {
		t.Fatal(err)
	}
	first.must(first.GetByTestId("sign-out").Click())
	first.must(expect.Locator(first.GetByTestId("sign-in")).ToBeVisible())
	if res, err := first.Goto(a.URL + conv); err != nil || res.Status() != http.StatusNotFound {
		t.Errorf("after sign-out, GET %s: %v %v, want 404", conv, res, err)
	}
	if res, err := second.Goto(a.URL + conv); err != nil || res.Status() != http.StatusOK {
		t.Errorf("the account's other browser after the first signed out: %v %v, want 200", res, err)
	}
}
