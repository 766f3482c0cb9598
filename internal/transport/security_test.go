package transport

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sweatpants-go/sweatpants/examples/demo"
	"github.com/sweatpants-go/sweatpants/internal/chat"
	"github.com/sweatpants-go/sweatpants/internal/kindset"
	"github.com/sweatpants-go/sweatpants/internal/offline"
	"github.com/sweatpants-go/sweatpants/internal/registry"
	"github.com/sweatpants-go/sweatpants/internal/store/storetest"
)

// count runs a counting query on the app's database file, as an operator
// would look at it.
func (a *testApp) count(t *testing.T, query string, args ...any) int {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+a.db.Path()+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var n int
	if err := db.QueryRow(query, args...).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// withCookie returns a browser whose session cookie holds value.
func (a *testApp) withCookie(t *testing.T, value string) *browser {
	b := a.browser(t)
	u, _ := url.Parse(a.srv.URL)
	b.c.Jar.SetCookies(u, []*http.Cookie{{Name: sessionCookie, Value: value, Path: "/"}})
	return b
}

// elsewhere moves the browser to another client address (a loopback
// address of its own), as a browser on another network is.
func (b *browser) elsewhere(ip string) *browser {
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}}
	b.c.Transport = &http.Transport{DialContext: d.DialContext}
	return b
}

func (b *browser) cookie() string {
	u, _ := url.Parse(b.app.srv.URL)
	for _, c := range b.c.Jar.Cookies(u) {
		if c.Name == sessionCookie {
			return c.Value
		}
	}
	return ""
}

// start starts a conversation with its first message, as the page of a new
// conversation does, and returns its id.
func (b *browser) start(agent, message string) string {
	b.t.Helper()
	code, body, loc := b.post("/c", url.Values{"agent": {agent}, "message": {message}})
	if code != http.StatusSeeOther || !strings.HasPrefix(loc, "/c/") {
		b.t.Fatalf("POST /c = %d to %q: %s", code, loc, body)
	}
	return strings.TrimPrefix(loc, "/c/")
}

func (b *browser) post(path string, form url.Values) (int, string, string) {
	b.t.Helper()
	req, _ := http.NewRequest(http.MethodPost, b.app.srv.URL+path, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", b.app.srv.URL)
	res, err := b.c.Do(req)
	if err != nil {
		b.t.Fatal(err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(body), res.Header.Get("Location")
}

func TestAVisitWritesNothingUntilTheFirstMessage(t *testing.T) {
	a := newTestApp(t)
	for range 3 { // as any cross-site <img> pointing at the app would
		res, err := http.Get(a.srv.URL + "/")
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != http.StatusOK || !strings.Contains(string(body), `action="/c"`) {
			t.Fatalf("GET / = %d, want 200 and the page of a new conversation:\n%s", res.StatusCode, body)
		}
		if ck := res.Header.Values("Set-Cookie"); len(ck) != 0 {
			t.Errorf("GET / set cookies %q, want none", ck)
		}
	}
	if got := a.count(t, `SELECT count(*) FROM sessions`) + a.count(t, `SELECT count(*) FROM conversations`); got != 0 {
		t.Errorf("visits wrote %d sessions and conversations, want 0", got)
	}

	b := a.browser(t)
	conv := b.start("concierge", "Plan a trip")
	res, err := b.c.Get(a.srv.URL + "/")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if loc := res.Header.Get("Location"); loc != "/c/"+conv {
		t.Errorf("after the first message, GET / leads to %q, want /c/%s", loc, conv)
	}
	_, page := b.do(http.MethodGet, "/c/"+conv, "", "")
	if !strings.Contains(page, "Plan a trip") {
		t.Errorf("the new conversation's page does not show its first message:\n%s", page)
	}
}

func TestTheSessionCookieIsHttpOnlyAndLax(t *testing.T) {
	a := newTestApp(t)
	b := a.browser(t)
	req, _ := http.NewRequest(http.MethodPost, a.srv.URL+"/c", strings.NewReader("message=hi"))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", a.srv.URL)
	res, err := b.c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	ck := res.Cookies()
	if len(ck) != 1 || ck[0].Name != sessionCookie || !ck[0].HttpOnly || ck[0].SameSite != http.SameSiteLaxMode || ck[0].Secure {
		t.Errorf("cookies = %+v, want one HttpOnly SameSite=Lax session cookie, not Secure over plain HTTP", ck)
	}
}

func TestAPlantedSessionIdNeverOwnsWhatTheBrowserStarts(t *testing.T) {
	a := newTestApp(t)
	const planted = "0123456789abcdef0123456789abcdef"
	victim := a.withCookie(t, planted)
	conv := victim.start("concierge", "my private trip")
	if got := victim.cookie(); got == planted || !validSession.MatchString(got) {
		t.Fatalf("after starting a conversation the session is %q, want a new one issued by the server", got)
	}
	if n := a.count(t, `SELECT count(*) FROM sessions WHERE id = ?`, planted); n != 0 {
		t.Errorf("the planted id was recorded as a session")
	}
	attacker := a.withCookie(t, planted).elsewhere("127.0.0.2")
	if code, _ := attacker.do(http.MethodGet, "/c/"+conv, "", ""); code != http.StatusNotFound {
		t.Errorf("the planted id reads the victim's conversation: %d, want 404", code)
	}

	// An id the server issued, planted in another browser, is rotated away
	// just the same when that browser starts a conversation.
	issued := a.browser(t)
	issued.start("concierge", "the attacker's own chat")
	known := issued.cookie()
	victim2 := a.withCookie(t, known)
	conv2 := victim2.start("concierge", "another private trip")
	if code, _ := a.withCookie(t, known).elsewhere("127.0.0.2").do(http.MethodGet, "/c/"+conv2, "", ""); code != http.StatusNotFound {
		t.Errorf("an issued id planted in a browser reads what it started: %d, want 404", code)
	}
}

func TestRotationKeepsTheBrowsersConversations(t *testing.T) {
	a := newTestApp(t)
	b := a.browser(t)
	first := b.start("concierge", "first")
	before := b.cookie()
	// Open, so that it is live in memory while the session rotates.
	if code, _ := b.do(http.MethodGet, "/c/"+first, "", ""); code != http.StatusOK {
		t.Fatalf("GET first = %d", code)
	}
	second := b.start("concierge", "second")
	after := b.cookie()
	if after == before {
		t.Fatal("starting a conversation did not rotate the session")
	}
	for _, conv := range []string{first, second} {
		if code, _ := b.do(http.MethodGet, "/c/"+conv, "", ""); code != http.StatusOK {
			t.Errorf("GET %s after rotation = %d, want 200", conv, code)
		}
		// Someone else holding the old id reads nothing.
		if code, _ := a.withCookie(t, before).elsewhere("127.0.0.2").do(http.MethodGet, "/c/"+conv, "", ""); code != http.StatusNotFound {
			t.Errorf("the old id, from another address, still reads %s: %d, want 404", conv, code)
		}
		// A tab of the same browser whose request left with the old id
		// a moment ago still reads it, and is moved along to the new id.
		tab := a.withCookie(t, before)
		if code, _ := tab.do(http.MethodGet, "/c/"+conv, "", ""); code != http.StatusOK {
			t.Errorf("the old id, from the browser's address just after the rotation, reads %s: %d, want 200", conv, code)
		}
		if got := tab.cookie(); got != after {
			t.Errorf("the tab with the old id was given %q, want the new id %q", got, after)
		}
	}
}

// TestTwoChatsStartedAtOnceKeepEveryConversation: a double-click on Send, or
// two tabs starting chats at once, sends two POST /c with the same cookie.
// Whichever answer the browser keeps, every earlier conversation and both
// new ones stay the browser's.
func TestTwoChatsStartedAtOnceKeepEveryConversation(t *testing.T) {
	a := newTestApp(t)
	b := a.browser(t)
	earlier := []string{b.start("concierge", "first"), b.start("concierge", "second")}
	old := b.cookie()
	const tabs = 4
	ids, cookies := make([]string, tabs), make([]string, tabs)
	var wg sync.WaitGroup
	for i := range tabs {
		tab := a.withCookie(t, old)
		wg.Go(func() {
			code, _, loc := tab.post("/c", url.Values{"agent": {"concierge"}, "message": {fmt.Sprintf("tab %d", i)}})
			ids[i], cookies[i] = strings.TrimPrefix(loc, "/c/"), tab.cookie()
			if code != http.StatusSeeOther {
				t.Errorf("POST /c from tab %d = %d", i, code)
			}
		})
	}
	wg.Wait()
	for _, ck := range cookies {
		if ck != cookies[0] {
			t.Fatalf("the tabs were given different sessions %v; whichever the browser keeps strands the others", cookies)
		}
	}
	kept := a.withCookie(t, cookies[0])
	for _, conv := range append(earlier, ids...) {
		if code, _ := kept.do(http.MethodGet, "/c/"+conv, "", ""); code != http.StatusOK {
			t.Errorf("GET %s with the session the browser kept = %d, want 200", conv, code)
		}
	}
}

func TestOnlyTheAppsHostsAreAnswered(t *testing.T) {
	svc := chat.New(chat.Config{Store: storetest.Open(t), Assistants: registry.New(demo.Agents(demo.Options{})...), Kinds: kindset.New(demo.Kinds()...), Model: offline.New(), DecideByRule: true})
	defer svc.Close()
	h := NewServer(Config{Chat: svc, Log: slog.New(slog.DiscardHandler), AllowedHosts: []string{"chat.example.com"}})
	for _, tc := range []struct {
		host string
		want int
	}{
		{"127.0.0.1:8080", 200},
		{"[::1]:8080", 200},
		{"localhost:8080", 200},
		{"LOCALHOST", 200},
		{"app.localhost:8080", 200},
		{"192.168.1.20:8080", 200},
		{"chat.example.com", 200},
		{"chat.example.com.:443", 200},
		{"evil.example:8080", 403},
		{"localhost.evil.example", 403},
		{"", 403},
	} {
		req := httptest.NewRequest(http.MethodGet, "/healthz", nil)
		req.Host = tc.host
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != tc.want {
			t.Errorf("Host %q = %d, want %d", tc.host, rec.Code, tc.want)
		}
		if tc.want == 403 && !strings.Contains(rec.Body.String(), "does not answer for the host") {
			t.Errorf("Host %q: refused with %q, want the reason", tc.host, rec.Body.String())
		}
	}
	// A rebinding page cannot create a conversation either.
	req := httptest.NewRequest(http.MethodPost, "/c", strings.NewReader("message=spend+the+key"))
	req.Host = "evil.example:8080"
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Code != 403 {
		t.Errorf("POST /c from a rebound name = %d, want 403", rec.Code)
	}
}

func TestEveryResponseCarriesTheSecurityHeaders(t *testing.T) {
	a := newTestApp(t)
	b := a.browser(t)
	conv := b.start("concierge", "hello")
	for _, path := range []string{"/", "/c/" + conv, "/c/" + conv + "/tree", "/static/app.css", "/nowhere", "/healthz"} {
		res, err := b.c.Get(a.srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		h := res.Header
		if csp := h.Get("Content-Security-Policy"); !strings.Contains(csp, "frame-ancestors 'none'") || !strings.Contains(csp, "script-src 'self' 'unsafe-eval'") || strings.Contains(csp, "script-src 'self' 'unsafe-eval' 'unsafe-inline'") {
			t.Errorf("%s: Content-Security-Policy %q", path, csp)
		}
		if h.Get("X-Content-Type-Options") != "nosniff" || h.Get("X-Frame-Options") != "DENY" {
			t.Errorf("%s: X-Content-Type-Options %q, X-Frame-Options %q", path, h.Get("X-Content-Type-Options"), h.Get("X-Frame-Options"))
		}
	}
}

func TestWrongMethodsAre405(t *testing.T) {
	a := newTestApp(t)
	b := a.browser(t)
	conv := b.start("concierge", "hello")
	for _, tc := range []struct{ method, path string }{
		{"GET", "/c/" + conv + "/messages"},
		{"GET", "/c"},
		{"DELETE", "/"},
		{"PUT", "/c/" + conv},
		{"GET", "/c/" + conv + "/stop"},
		{"POST", "/c/" + conv + "/tree"},
	} {
		code, body := b.do(tc.method, tc.path, "", "")
		if code != http.StatusMethodNotAllowed {
			t.Errorf("%s %s = %d %q, want 405", tc.method, tc.path, code, body)
		}
	}
}

func TestStartingAConversationWithABadBodyRecordsNothing(t *testing.T) {
	a := newTestApp(t) // 4 KiB bodies
	b := a.browser(t)
	for _, tc := range []struct {
		name, contentType, body string
		want                    int
		wantBody                string
	}{
		{"over the limit", "application/x-www-form-urlencoded", "message=" + strings.Repeat("x", 5000), 413, "larger than the 4 KiB limit"},
		{"multipart over the limit", "multipart/form-data; boundary=b", "--b\r\nContent-Disposition: form-data; name=\"message\"\r\n\r\n" + strings.Repeat("x", 5000) + "\r\n--b--\r\n", 413, "larger than the 4 KiB limit"},
		{"not a form", "application/json", `{"message":"hi"}`, 400, `Send this as a form, not "application/json"`},
		{"no content type", "", "message=hi", 400, "Send this as a form"},
		{"unreadable form", "application/x-www-form-urlencoded", "message=%zz", 400, "could not be read"},
		{"unknown agent", "application/x-www-form-urlencoded", "agent=nosuch&message=hi", 400, `There is no agent "nosuch"`},
		{"empty message", "application/x-www-form-urlencoded", "message=+%0D%0A", 400, "Type a message before sending."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b.t = t
			code, body := b.do(http.MethodPost, "/c", tc.contentType, tc.body)
			if code != tc.want || !strings.Contains(body, tc.wantBody) {
				t.Errorf("got %d %q, want %d containing %q", code, body, tc.want, tc.wantBody)
			}
		})
	}
	b.t = t
	if got := a.count(t, `SELECT count(*) FROM conversations`) + a.count(t, `SELECT count(*) FROM sessions`); got != 0 {
		t.Errorf("refused requests recorded %d conversations and sessions, want none", got)
	}
	if b.cookie() != "" {
		t.Errorf("a refused request set a session cookie")
	}
	// A message that cannot be sent shows the page again, with why and with
	// what was typed.
	code, body := b.do(http.MethodPost, "/c", "application/x-www-form-urlencoded", "message=+%0D%0A+")
	if code != 400 || !strings.Contains(body, `data-testid="notice" class="shown">Type a message before sending.`) || !strings.Contains(body, `action="/c"`) {
		t.Errorf("got %d %q, want the page again with the reason in its notice", code, body)
	}
}

func TestOversizedFormsAre413(t *testing.T) {
	a := newTestApp(t)
	b := a.browser(t)
	conv := b.newConversation("concierge")
	eid := b.pendingElicit(conv, "a trip")
	msg := firstNode(t, a, conv, "user")
	before := a.nodeCount(t, conv)
	big := "destination=" + strings.Repeat("x", 5000) + "&_action=accept"
	for _, path := range []string{"/c/" + conv + "/elicits/" + eid, "/c/" + conv + "/elicits/" + eid + "/change", "/c/" + conv + "/messages/" + msg + "/edit"} {
		code, body := b.do(http.MethodPost, path, "application/x-www-form-urlencoded", big)
		if code != http.StatusRequestEntityTooLarge || !strings.Contains(body, "larger than the 4 KiB limit") {
			t.Errorf("%s = %d %q, want 413 saying the limit", path, code, body)
		}
	}
	if got := a.nodeCount(t, conv); got != before {
		t.Errorf("oversized requests changed the record: %d nodes, want %d", got, before)
	}
}

func TestTheCookieIsSecureWhenTheAppIsReachedOverHTTPS(t *testing.T) {
	svc := chat.New(chat.Config{Store: storetest.Open(t), Assistants: registry.New(demo.Agents(demo.Options{})...), Kinds: kindset.New(demo.Kinds()...), Model: offline.New(), DecideByRule: true})
	defer svc.Close()
	proxy := netip.MustParsePrefix("10.0.0.0/8")
	for _, tc := range []struct {
		name       string
		cfg        Config
		remote     string
		forwarded  string
		wantSecure bool
	}{
		{"plain HTTP", Config{}, "127.0.0.1:5000", "", false},
		{"configured", Config{SecureCookies: true}, "127.0.0.1:5000", "", true},
		{"a trusted proxy says https", Config{TrustedProxies: []netip.Prefix{proxy}}, "10.1.2.3:5000", "https", true},
		{"an untrusted client says https", Config{TrustedProxies: []netip.Prefix{proxy}}, "192.0.2.7:5000", "https", false},
		{"no proxy is trusted", Config{}, "10.1.2.3:5000", "https", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.cfg.Chat, tc.cfg.Log = svc, slog.New(slog.DiscardHandler)
			req := httptest.NewRequest(http.MethodPost, "/c", strings.NewReader("message=hi"))
			req.RemoteAddr, req.Host = tc.remote, "127.0.0.1:8080"
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			if tc.forwarded != "" {
				req.Header.Set("X-Forwarded-Proto", tc.forwarded)
			}
			rec := httptest.NewRecorder()
			NewServer(tc.cfg).ServeHTTP(rec, req)
			ck := rec.Result().Cookies()
			if rec.Code != http.StatusSeeOther || len(ck) != 1 || ck[0].Secure != tc.wantSecure {
				t.Errorf("got %d, cookies %+v; want 303 and Secure=%v", rec.Code, ck, tc.wantSecure)
			}
		})
	}
}

func TestParsePrefixes(t *testing.T) {
	got, err := ParsePrefixes(" 10.0.0.1, 192.168.0.0/16 ,::1,")
	if err != nil {
		t.Fatal(err)
	}
	want := []netip.Prefix{netip.MustParsePrefix("10.0.0.1/32"), netip.MustParsePrefix("192.168.0.0/16"), netip.MustParsePrefix("::1/128")}
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("got %v, want %v", got, want)
		}
	}
	if _, err := ParsePrefixes("10.0.0.1,proxy.local"); err == nil || !strings.Contains(err.Error(), `"proxy.local"`) {
		t.Errorf("a name was taken as a proxy: %v", err)
	}
}

func TestOneBrowserHoldsABoundedNumberOfStreams(t *testing.T) {
	a := newTestApp(t)
	b := a.browser(t)
	conv := b.start("concierge", "hello")
	open := func() (*http.Response, context.CancelFunc) {
		ctx, cancel := context.WithCancel(context.Background())
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, a.srv.URL+"/c/"+conv+"/stream", nil)
		res, err := b.c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		return res, cancel
	}
	var cancels []context.CancelFunc
	defer func() {
		for _, c := range cancels {
			c()
		}
	}()
	for i := range DefaultMaxStreams {
		res, cancel := open()
		cancels = append(cancels, cancel)
		if res.StatusCode != http.StatusOK {
			t.Fatalf("stream %d = %d, want 200", i+1, res.StatusCode)
		}
	}
	res, cancel := open()
	body, _ := io.ReadAll(res.Body)
	cancel()
	if res.StatusCode != http.StatusTooManyRequests || !strings.Contains(string(body), "close some tabs") {
		t.Errorf("stream %d = %d %q, want 429 saying why", DefaultMaxStreams+1, res.StatusCode, body)
	}
	// Another browser is not held back by this one.
	other := a.browser(t)
	conv2 := other.start("concierge", "hi")
	ctx, cancel2 := context.WithCancel(context.Background())
	defer cancel2()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, a.srv.URL+"/c/"+conv2+"/stream", nil)
	if res, err := other.c.Do(req); err != nil || res.StatusCode != http.StatusOK {
		t.Errorf("another browser's stream = %v %v, want 200", res, err)
	}
	// A closed stream makes room again.
	cancels[0]()
	deadline := time.Now().Add(5 * time.Second)
	for {
		res, cancel := open()
		cancels = append(cancels, cancel)
		if res.StatusCode == http.StatusOK {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after closing a stream, a new one = %d, want 200", res.StatusCode)
		}
		res.Body.Close()
		time.Sleep(10 * time.Millisecond) // polling a condition, with a deadline
	}
}
