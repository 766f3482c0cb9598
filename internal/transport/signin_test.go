package transport

import (
	"context"
	"database/sql"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/zitadel/oidc/v3/example/server/exampleop"
	opstorage "github.com/zitadel/oidc/v3/example/server/storage"
	"golang.org/x/oauth2"

	"github.com/sweatpants-go/sweatpants/examples/demo"
	"github.com/sweatpants-go/sweatpants/internal/calls"
	"github.com/sweatpants-go/sweatpants/internal/chat"
	"github.com/sweatpants-go/sweatpants/internal/files"
	"github.com/sweatpants-go/sweatpants/internal/kindset"
	"github.com/sweatpants-go/sweatpants/internal/offline"
	"github.com/sweatpants-go/sweatpants/internal/openid"
	"github.com/sweatpants-go/sweatpants/internal/registry"
	"github.com/sweatpants-go/sweatpants/internal/store"
	"github.com/sweatpants-go/sweatpants/internal/store/storetest"
)

// provider is a real OpenID provider (zitadel's example provider, in this
// process) with two web clients: "sweatpants", whose redirect is the app's
// callback, and "other", another application of the same provider.
type provider struct {
	srv *httptest.Server
	mu  sync.Mutex
	// swap, when set, replaces the ID token of the next token answer: an
	// ID token the provider really issued, but for another sign-in.
	swap string
}

const otherRedirect = "http://other.invalid/callback"

func newProvider(t *testing.T, redirect string) *provider {
	p := &provider{}
	var op http.Handler
	p.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p.mu.Lock()
		swap := p.swap
		p.swap = ""
		p.mu.Unlock()
		if swap == "" || r.URL.Path != "/oauth/token" {
			op.ServeHTTP(w, r)
			return
		}
		rec := httptest.NewRecorder()
		op.ServeHTTP(rec, r)
		var body map[string]any
		if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil || body["id_token"] == nil {
			t.Errorf("the provider's token answer %d has no ID token to swap: %s", rec.Code, rec.Body)
		}
		body["id_token"] = swap
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(body)
	}))
	t.Cleanup(p.srv.Close)
	clients := map[string]*opstorage.Client{
		"sweatpants": opstorage.WebClient("sweatpants", "s3cret", redirect),
		"other":      opstorage.WebClient("other", "0ther", otherRedirect),
	}
	op = exampleop.SetupServer(p.srv.URL, opstorage.NewStorageWithClients(opstorage.NewUserStore(p.srv.URL), clients), nil, false)
	return p
}

// user1 and user2 are the provider's example users.
func (p *provider) user1() string {
	u, _ := url.Parse(p.srv.URL)
	return "test-user@" + u.Hostname()
}

const user2 = "test-user2"

// newSigninApp serves the demo agents with sign-in by the provider; now,
// when set, is the clock the app checks ID tokens by.
func newSigninApp(t *testing.T, now func() time.Time) (*testApp, *provider) {
	t.Helper()
	var h http.Handler
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { h.ServeHTTP(w, r) }))
	appURL := "http://" + srv.Listener.Addr().String()
	p := newProvider(t, appURL+"/signin/callback")
	o, err := openid.New(context.Background(), openid.Config{Issuer: p.srv.URL, ClientID: "sweatpants", ClientSecret: "s3cret",
		RedirectURL: appURL + "/signin/callback", Now: now})
	if err != nil {
		t.Fatal(err)
	}
	db := storetest.Open(t)
	svc := chat.New(chat.Config{Assistants: registry.New(demo.Agents(demo.Options{})...), Kinds: kindset.New(demo.Kinds()...),
		Model: offline.New(), DecideByRule: true, Store: db})
	server, handler := newServer(Config{Chat: svc, Calls: calls.New(db, svc), Log: slog.New(slog.NewTextHandler(io.Discard, nil)),
		MaxBody: 4 << 10, SignIn: SignIn{Accounts: testAccounts{db, svc}, OIDC: o}, MCPTokens: db,
		Files: files.New(db, files.Options{Limits: files.DefaultLimits(), Spool: t.TempDir()})})
	h = handler
	srv.Start()
	t.Cleanup(func() {
		srv.Close()
		svc.Close()
	})
	return &testApp{srv: srv, db: db, svc: svc, server: server}, p
}

// testAccounts is the record of accounts as the program wires it (app).
type testAccounts struct {
	db  *store.DB
	svc *chat.Service
}

func (a testAccounts) SignIn(ctx context.Context, who Identity, signin string) (Account, bool, error) {
	got, ok, err := a.db.SignIn(ctx, store.Identity(who), signin, chat.NewSessionID())
	return Account{ID: got.ID, Email: got.Email, Name: got.Name, Groups: got.Groups}, ok, err
}

func (a testAccounts) SignedIn(ctx context.Context, signin string) (Account, bool, error) {
	got, ok, err := a.db.SignedIn(ctx, signin)
	return Account{ID: got.ID, Email: got.Email, Name: got.Name, Groups: got.Groups}, ok, err
}

func (a testAccounts) SignOut(ctx context.Context, signin string) error {
	return a.db.SignOut(ctx, signin)
}

func (a testAccounts) Claim(ctx context.Context, prev, owner string) error {
	claimed, err := a.db.ClaimSession(ctx, prev, owner)
	if err == nil && claimed {
		a.svc.Claimed(prev, owner)
	}
	return err
}

// get fetches u (absolute) with the browser's cookies, and follows
// redirects while stop says not to stop at the location; it returns the
// last answer's status, body and location.
func (b *browser) get(u string, stop func(loc string) bool) (int, string, string) {
	b.t.Helper()
	for range 20 {
		res, err := b.c.Get(u)
		if err != nil {
			b.t.Fatal(err)
		}
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		loc := res.Header.Get("Location")
		if res.StatusCode < 300 || res.StatusCode >= 400 || loc == "" {
			return res.StatusCode, string(body), ""
		}
		next, err := res.Request.URL.Parse(loc)
		if err != nil {
			b.t.Fatal(err)
		}
		if stop != nil && stop(next.String()) {
			return res.StatusCode, string(body), next.String()
		}
		u = next.String()
	}
	b.t.Fatalf("too many redirects from %s", u)
	return 0, "", ""
}

var loginID = regexp.MustCompile(`name="id" value="([^"]+)"`)

// login signs user in at the provider's login page reached from start (the
// app's /signin, or another client's authorize URL), and returns where the
// provider sends the browser back to, unvisited.
func (b *browser) login(p *provider, start, user string, back string) string {
	b.t.Helper()
	code, page, _ := b.get(start, nil)
	m := loginID.FindStringSubmatch(page)
	if code != http.StatusOK || m == nil {
		b.t.Fatalf("the provider's login page: %d %s", code, page)
	}
	res, err := b.c.PostForm(p.srv.URL+"/login/username", url.Values{"id": {m[1]}, "username": {user}, "password": {"verysecure"}})
	if err != nil {
		b.t.Fatal(err)
	}
	res.Body.Close()
	next, _ := res.Request.URL.Parse(res.Header.Get("Location"))
	_, body, loc := b.get(next.String(), func(loc string) bool { return strings.HasPrefix(loc, back) })
	if loc == "" {
		b.t.Fatalf("the provider did not send the browser back to %s: %s", back, body)
	}
	return loc
}

// signIn signs the browser in as user, through the provider, and checks it
// lands home signed in.
func (b *browser) signIn(p *provider, user string) {
	b.t.Helper()
	back := b.login(p, b.app.srv.URL+"/signin", user, b.app.srv.URL+"/signin/callback")
	code, body, loc := b.get(back, func(string) bool { return true })
	if code != http.StatusSeeOther || loc != b.app.srv.URL+"/" {
		b.t.Fatalf("callback = %d to %q: %s", code, loc, body)
	}
}

func TestSignInWithOpenIDOwnsConversationsByAccount(t *testing.T) {
	a, p := newSigninApp(t, nil)
	first := a.browser(t)
	conv := first.start("concierge", "Plan a trip") // anonymous, before signing in
	code, body, sent := first.upload(part{"notes.txt", "", []byte("my notes")})
	if code != http.StatusOK || len(sent) != 1 {
		t.Fatalf("upload = %d %s", code, body)
	}
	file := sent[0]
	first.signIn(p, p.user1())
	if n := a.count(t, `SELECT COUNT(*) FROM signins`); n != 1 {
		t.Fatalf("%d sign-ins recorded, want 1", n)
	}
	code, page := first.do("GET", "/c/"+conv, "", "")
	if code != http.StatusOK {
		t.Fatalf("the conversation started before signing in: %d, want 200 (claimed by the account)", code)
	}
	if !strings.Contains(page, `data-testid="signed-in-as" dir="auto">Test User<`) || !strings.Contains(page, `data-testid="sign-out"`) {
		i := strings.Index(page, `class="account"`)
		t.Errorf("the page does not show who is signed in, with a Sign out button: %s", page[max(i, 0):min(len(page), max(i, 0)+400)])
	}
	// Another browser of the same account sees it; another account does not.
	second := a.browser(t)
	second.signIn(p, p.user1())
	if code, _ := second.do("GET", "/c/"+conv, "", ""); code != http.StatusOK {
		t.Fatalf("the account's second browser: %d, want 200", code)
	}
	stranger := a.browser(t)
	stranger.signIn(p, user2)
	for _, path := range []string{"/c/" + conv, "/c/" + conv + "/events", "/c/" + conv + "/stream", "/c/" + conv + "/tree"} {
		if code, _ := stranger.do("GET", path, "", ""); code != http.StatusNotFound {
			t.Errorf("another account's GET %s: %d, want 404", path, code)
		}
	}
	if _, code := stranger.dialWS(conv, "", "Origin", a.srv.URL); code != http.StatusNotFound {
		t.Errorf("another account's WebSocket: %d, want 404", code)
	}
	// A file the first browser sent anonymously is the account's, and no
	// other account's.
	if res, _ := first.fetch(file.URL); res.StatusCode != http.StatusOK {
		t.Errorf("the account's own file, sent before signing in: %d, want 200", res.StatusCode)
	}
	if res, _ := stranger.fetch(file.URL); res.StatusCode != http.StatusNotFound {
		t.Errorf("another account's GET of the file: %d, want 404", res.StatusCode)
	}
	if code, _ := stranger.do("POST", "/c/"+conv+"/messages", "application/json", `{"message":"hi"}`, "Datastar-Request", "true"); code != http.StatusNotFound {
		t.Errorf("another account's message: %d, want 404", code)
	}
	// The second browser starts a conversation: the first sees it too.
	other := second.start("concierge", "second browser")
	if code, _ := first.do("GET", "/c/"+other, "", ""); code != http.StatusOK {
		t.Errorf("a conversation the second browser started, in the first: %d, want 200", code)
	}
	// Sign-out ends the first browser's sign-in only.
	if code, _, _ := first.post("/signout", nil); code != http.StatusSeeOther {
		t.Fatalf("POST /signout = %d, want 303", code)
	}
	if code, _ := first.do("GET", "/c/"+conv, "", ""); code != http.StatusNotFound {
		t.Errorf("after sign-out: %d, want 404", code)
	}
	if _, page := first.do("GET", "/new", "", ""); !strings.Contains(page, `href="/signin" data-testid="sign-in"`) {
		t.Errorf("after sign-out the page offers no Sign in link")
	}
	if code, _ := second.do("GET", "/c/"+conv, "", ""); code != http.StatusOK {
		t.Errorf("the other browser after the first signed out: %d, want 200", code)
	}
}

// refusedPage checks a sign-in's callback was refused with a page saying
// why, and that no sign-in was recorded.
func refusedPage(t *testing.T, a *testApp, b *browser, callback, why string) {
	t.Helper()
	before := a.count(t, `SELECT COUNT(*) FROM signins`)
	code, body, _ := b.get(callback, func(string) bool { return true })
	if code != http.StatusBadRequest || !strings.Contains(body, "Sign-in refused") || !strings.Contains(body, why) {
		t.Errorf("callback = %d %s; want 400, a page saying %q", code, body, why)
	}
	if n := a.count(t, `SELECT COUNT(*) FROM signins`); n != before {
		t.Errorf("%d sign-ins recorded after a refused one, want %d", n, before)
	}
	if code, _ := b.do("GET", "/settings/permissions", "", ""); code != http.StatusOK {
		t.Fatalf("settings page: %d", code)
	}
}

func TestSignInRefusesATamperedState(t *testing.T) {
	a, p := newSigninApp(t, nil)
	b := a.browser(t)
	back := b.login(p, a.srv.URL+"/signin", p.user1(), a.srv.URL+"/signin/callback")
	u, _ := url.Parse(back)
	q := u.Query()
	q.Set("state", q.Get("state")+"x")
	u.RawQuery = q.Encode()
	refusedPage(t, a, b, u.String(), "state does not match")
}

func TestSignInRefusesAReplayedCode(t *testing.T) {
	a, p := newSigninApp(t, nil)
	b := a.browser(t)
	back := b.login(p, a.srv.URL+"/signin", p.user1(), a.srv.URL+"/signin/callback")
	if code, _, loc := b.get(back, func(string) bool { return true }); code != http.StatusSeeOther || loc != a.srv.URL+"/" {
		t.Fatalf("first use of the code: %d to %q", code, loc)
	}
	// A new sign-in of the browser, and the old code sent with its state.
	_, _, authorize := b.get(a.srv.URL+"/signin", func(string) bool { return true })
	au, _ := url.Parse(authorize)
	u, _ := url.Parse(back)
	q := u.Query()
	q.Set("state", au.Query().Get("state"))
	u.RawQuery = q.Encode()
	refusedPage(t, a, b, u.String(), "did not accept this sign-in")
}

// otherToken is an ID token the provider issued to the client "other".
func otherToken(t *testing.T, p *provider) string {
	t.Helper()
	b := (&testApp{srv: p.srv}).browser(t)
	cfg := oauth2.Config{ClientID: "other", ClientSecret: "0ther", RedirectURL: otherRedirect, Scopes: []string{"openid"},
		Endpoint: oauth2.Endpoint{AuthURL: p.srv.URL + "/auth", TokenURL: p.srv.URL + "/oauth/token"}}
	back := b.login(p, cfg.AuthCodeURL("st", oauth2.SetAuthURLParam("nonce", "n")), p.user1(), otherRedirect)
	u, _ := url.Parse(back)
	tok, err := cfg.Exchange(context.Background(), u.Query().Get("code"))
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := tok.Extra("id_token").(string)
	if raw == "" {
		t.Fatal("no ID token for the other client")
	}
	return raw
}

func TestSignInRefusesATokenForAnotherAudience(t *testing.T) {
	a, p := newSigninApp(t, nil)
	theirs := otherToken(t, p)
	b := a.browser(t)
	back := b.login(p, a.srv.URL+"/signin", p.user1(), a.srv.URL+"/signin/callback")
	p.mu.Lock()
	p.swap = theirs
	p.mu.Unlock()
	refusedPage(t, a, b, back, "audience")
}

func TestSignInRefusesAnExpiredToken(t *testing.T) {
	later := func() time.Time { return time.Now().Add(2 * time.Hour) } // the provider's ID tokens live an hour
	a, p := newSigninApp(t, later)
	b := a.browser(t)
	back := b.login(p, a.srv.URL+"/signin", p.user1(), a.srv.URL+"/signin/callback")
	refusedPage(t, a, b, back, "expired")
}

func TestTrustedHeaderSignsInFromTrustedProxiesOnly(t *testing.T) {
	a := newTestAppWith(t, chat.Config{Assistants: registry.New(demo.Agents(demo.Options{})...), Kinds: kindset.New(demo.Kinds()...), Model: offline.New()},
		func(db *store.DB, cfg *Config) {
			cfg.TrustedProxies = []netip.Prefix{netip.MustParsePrefix("127.0.0.2/32")}
			cfg.SignIn = SignIn{Accounts: testAccounts{db, nil}, TrustedHeader: true}
		})
	viaProxy := func() *browser { return a.browser(t).elsewhere("127.0.0.2") }
	ann := viaProxy()
	conv := ann.startAs("ann", "Plan a trip")
	// Another browser behind the proxy, as the same person, sees it.
	if code, _ := viaProxy().do("GET", "/c/"+conv, "", "", "X-Forwarded-User", "ann"); code != http.StatusOK {
		t.Errorf("ann from another browser: %d, want 200", code)
	}
	if code, _ := viaProxy().do("GET", "/c/"+conv, "", "", "X-Forwarded-User", "bob"); code != http.StatusNotFound {
		t.Errorf("bob: %d, want 404", code)
	}
	// The header from anyone but the proxy names nobody.
	if code, _ := a.browser(t).do("GET", "/c/"+conv, "", "", "X-Forwarded-User", "ann"); code != http.StatusNotFound {
		t.Errorf("ann's header, not from the proxy: %d, want 404", code)
	}
}

// startAs starts a conversation as the proxy names user.
func (b *browser) startAs(user, message string) string {
	b.t.Helper()
	req, _ := http.NewRequest(http.MethodPost, b.app.srv.URL+"/c", strings.NewReader(url.Values{"agent": {"concierge"}, "message": {message}}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", b.app.srv.URL)
	req.Header.Set("X-Forwarded-User", user)
	res, err := b.c.Do(req)
	if err != nil {
		b.t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusSeeOther {
		b.t.Fatalf("POST /c = %d, want 303", res.StatusCode)
	}
	return strings.TrimPrefix(res.Header.Get("Location"), "/c/")
}

// openStream opens path's stream in the browser and returns a channel
// closed once the server ends it.
func (b *browser) openStream(path string) <-chan struct{} {
	b.t.Helper()
	req, _ := http.NewRequest(http.MethodGet, b.app.srv.URL+path, nil)
	req.Header.Set("Accept", "text/event-stream")
	ctx, cancel := context.WithCancel(context.Background())
	b.t.Cleanup(cancel)
	res, err := b.c.Do(req.WithContext(ctx))
	if err != nil {
		b.t.Fatal(err)
	}
	if res.StatusCode != http.StatusOK {
		b.t.Fatalf("GET %s = %d, want 200", path, res.StatusCode)
	}
	ended := make(chan struct{})
	go func() {
		defer close(ended)
		defer res.Body.Close()
		io.Copy(io.Discard, res.Body)
	}()
	return ended
}

func TestSignOutAndADisabledAccountCutOpenStreams(t *testing.T) {
	a, p := newSigninApp(t, nil)
	a.server.signinRecheck = 20 * time.Millisecond
	first, second := a.browser(t), a.browser(t)
	first.signIn(p, p.user1())
	second.signIn(p, p.user1())
	conv := first.start("concierge", "Plan a trip")
	firstStream, secondStream := first.openStream("/c/"+conv+"/events"), second.openStream("/c/"+conv+"/stream")
	if code, _, _ := first.post("/signout", nil); code != http.StatusSeeOther {
		t.Fatalf("POST /signout = %d", code)
	}
	select {
	case <-firstStream:
	case <-time.After(10 * time.Second):
		t.Fatal("the signed-out browser's event stream is still open")
	}
	select {
	case <-secondStream:
		t.Fatal("the other browser's stream ended at the first's sign-out")
	default:
	}
	ro, err := sql.Open("sqlite", "file:"+a.db.Path()+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	var id string
	if err := ro.QueryRow(`SELECT id FROM accounts`).Scan(&id); err != nil {
		t.Fatal(err)
	}
	if err := a.db.DisableAccount(context.Background(), id); err != nil {
		t.Fatal(err)
	}
	select {
	case <-secondStream:
	case <-time.After(10 * time.Second):
		t.Fatal("the disabled account's stream is still open")
	}
	if code, _ := second.do("GET", "/c/"+conv, "", ""); code != http.StatusNotFound {
		t.Errorf("the disabled account's browser: %d, want 404", code)
	}
}

func TestWhereSignInIsRequiredNobodyStartsAnythingAnonymously(t *testing.T) {
	a, p := newSigninApp(t, nil)
	a.server.signin.Required = true
	anon := a.browser(t)
	if code, _, loc := anon.get(a.srv.URL+"/", func(string) bool { return true }); code != http.StatusSeeOther || loc != a.srv.URL+"/signin" {
		t.Errorf("GET / = %d to %q, want 303 to /signin", code, loc)
	}
	if code, body, _ := anon.post("/c", url.Values{"agent": {"concierge"}, "message": {"hi"}}); code != http.StatusUnauthorized || !strings.Contains(body, "Sign in first") {
		t.Errorf("an anonymous chat = %d %q, want 401 saying to sign in", code, body)
	}
	if code, body, _ := anon.upload(part{"notes.txt", "", []byte("x")}); code != http.StatusUnauthorized {
		t.Errorf("an anonymous upload = %d %q, want 401", code, body)
	}
	if n := a.count(t, `SELECT COUNT(*) FROM sessions`); n != 0 {
		t.Errorf("%d sessions recorded for anonymous browsers, want none", n)
	}
	anon.signIn(p, p.user1())
	conv := anon.start("concierge", "Plan a trip")
	if code, _ := anon.do("GET", "/c/"+conv, "", ""); code != http.StatusOK {
		t.Errorf("signed in: %d, want 200", code)
	}
}

func TestSignInRefusesAnotherDomainOrGroup(t *testing.T) {
	a, p := newSigninApp(t, nil)
	a.server.signin.OIDC.Domains = []string{"example.com"}
	b := a.browser(t)
	back := b.login(p, a.srv.URL+"/signin", p.user1(), a.srv.URL+"/signin/callback")
	refusedPage(t, a, b, back, "Accounts of zitadel.ch may not sign in here.")

	a.server.signin.OIDC.Domains = []string{"Zitadel.CH"}
	a.server.signin.OIDC.Groups = []string{"staff"}
	back = b.login(p, a.srv.URL+"/signin", p.user1(), a.srv.URL+"/signin/callback")
	refusedPage(t, a, b, back, "You are in none of the groups that may sign in here.")

	a.server.signin.OIDC.Groups = nil
	b.signIn(p, p.user1())
}
