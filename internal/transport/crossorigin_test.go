package transport

import (
	"cmp"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"

	"github.com/sweatpants-go/sweatpants/examples/demo"
	"github.com/sweatpants-go/sweatpants/internal/chat"
	"github.com/sweatpants-go/sweatpants/internal/kindset"
	"github.com/sweatpants-go/sweatpants/internal/offline"
	"github.com/sweatpants-go/sweatpants/internal/registry"
	"github.com/sweatpants-go/sweatpants/internal/store/storetest"
)

// TestWritesFromAnotherSiteAreRefused posts the new-chat form as a page on
// another site would make a browser post it, through each header a browser
// may or may not send, and as the app's own pages and non-browser clients
// post it.
func TestWritesFromAnotherSiteAreRefused(t *testing.T) {
	db := storetest.Open(t)
	svc := chat.New(chat.Config{Store: db, Assistants: registry.New(demo.Agents(demo.Options{})...), Kinds: kindset.New(demo.Kinds()...), Model: offline.New(), DecideByRule: true})
	defer svc.Close()
	app := &testApp{db: db, svc: svc}
	conversations := func() int { return app.count(t, `SELECT count(*) FROM conversations`) }

	const local, named = "127.0.0.1:8080", "chat.example.com"
	plain := Config{}
	overHTTPS := Config{SecureCookies: true}
	behindProxy := Config{TrustedProxies: []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")}}
	const proxy, client = "10.1.2.3:5000", "192.0.2.7:5000"
	for _, tc := range []struct {
		name    string
		cfg     Config
		remote  string // client's address; "client" when empty
		host    string
		method  string // POST when empty
		headers []string
		refused bool
	}{
		// Another site, told by the Referer alone.
		{"a foreign Referer and no Origin", plain, "", local, "", []string{"Referer", "http://evil.example/attack.html"}, true},
		{"a Referer on another port", plain, "", local, "", []string{"Referer", "http://127.0.0.1:9999/"}, true},
		{"a Referer over https to a plain-HTTP server", plain, "", local, "", []string{"Referer", "https://127.0.0.1:8080/c/abc"}, true},
		{"a Referer of another site on the default port", plain, "", named, "", []string{"Referer", "https://chat.example.com/"}, true},
		{"a Referer that names no site", plain, "", local, "", []string{"Referer", "not a page"}, true},
		{"an http Referer behind a proxy that says https", behindProxy, proxy, named, "", []string{"Referer", "http://chat.example.com/", "X-Forwarded-Proto", "https"}, true},

		// Another site with the app's host name, told by the Origin's scheme.
		{"an https Origin to a plain-HTTP server", plain, "", local, "", []string{"Origin", "https://127.0.0.1:8080"}, true},
		{"an https Origin of the app's name to a plain-HTTP server", plain, "", named, "", []string{"Origin", "https://chat.example.com"}, true},
		{"an https Origin when an untrusted client says https", behindProxy, client, named, "", []string{"Origin", "https://chat.example.com", "X-Forwarded-Proto", "https"}, true},
		{"an http Origin to a server over HTTPS", overHTTPS, "", named, "", []string{"Origin", "http://chat.example.com"}, true},
		{"an http Origin behind a proxy that says https", behindProxy, proxy, named, "", []string{"Origin", "http://chat.example.com", "X-Forwarded-Proto", "https"}, true},

		// Pages with no origin of their own.
		{"Origin null", plain, "", local, "", []string{"Origin", "null"}, true},
		{"Origin null said to be same-origin", plain, "", local, "", []string{"Origin", "null", "Sec-Fetch-Site", "same-origin"}, true},
		{"Origin null with a same-origin Referer", plain, "", local, "", []string{"Origin", "null", "Referer", "http://127.0.0.1:8080/"}, true},

		// What Go's check already refused.
		{"a foreign Origin", plain, "", local, "", []string{"Origin", "http://evil.example"}, true},
		{"an Origin on another port with the app's Referer", plain, "", local, "", []string{"Origin", "http://127.0.0.1:9999", "Referer", "http://127.0.0.1:8080/"}, true},
		{"an Origin on another port", plain, "", local, "", []string{"Origin", "http://127.0.0.1:9999"}, true},
		{"Sec-Fetch-Site cross-site", plain, "", local, "", []string{"Origin", "http://evil.example", "Sec-Fetch-Site", "cross-site"}, true},
		{"Sec-Fetch-Site same-site (http to https)", plain, "", local, "", []string{"Origin", "https://127.0.0.1:8080", "Sec-Fetch-Site", "same-site"}, true},

		// The app's own pages, and clients that are no browser.
		{"neither Origin nor Referer (curl, scripts)", plain, "", local, "", nil, false},
		{"Chromium's fetch from the app's page", plain, "", local, "", []string{"Origin", "http://127.0.0.1:8080", "Sec-Fetch-Site", "same-origin", "Referer", "http://127.0.0.1:8080/c/abc"}, false},
		{"the app's Origin without fetch metadata", plain, "", local, "", []string{"Origin", "http://127.0.0.1:8080"}, false},
		{"the app's Referer without Origin", plain, "", local, "", []string{"Referer", "http://127.0.0.1:8080/c/abc?x=1"}, false},
		{"the app's Referer to a Host that spells the default port", plain, "", named + ":80", "", []string{"Referer", "http://chat.example.com/c/abc"}, false},
		{"the app's Origin over IPv6", plain, "", "[::1]:8080", "", []string{"Origin", "http://[::1]:8080"}, false},
		{"an https Origin to a server over HTTPS", overHTTPS, "", named, "", []string{"Origin", "https://chat.example.com"}, false},
		{"an https Origin behind a proxy that says https", behindProxy, proxy, named, "", []string{"Origin", "https://chat.example.com", "X-Forwarded-Proto", "https"}, false},
		{"an https Referer behind a proxy that says https", behindProxy, proxy, named, "", []string{"Referer", "https://chat.example.com/c/abc", "X-Forwarded-Proto", "https"}, false},
		// A browser that says same-origin is believed: it knows the scheme
		// it loaded the page over, which a server behind a proxy it does
		// not trust cannot tell.
		{"same-origin fetch metadata behind an untrusted proxy", plain, "", named, "", []string{"Origin", "https://chat.example.com", "Sec-Fetch-Site", "same-origin"}, false},
		// Reading is never refused: a link from another site opens the app.
		{"a link from another site", plain, "", local, http.MethodGet, []string{"Referer", "http://evil.example/", "Sec-Fetch-Site", "cross-site"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.cfg.Chat, tc.cfg.Log, tc.cfg.AllowedHosts = svc, slog.New(slog.DiscardHandler), []string{named}
			method, path, want := cmp.Or(tc.method, http.MethodPost), "/c", http.StatusSeeOther
			if method == http.MethodGet {
				path, want = "/", http.StatusOK
			}
			if tc.refused {
				want = http.StatusForbidden
			}
			req := httptest.NewRequest(method, path, strings.NewReader("agent=concierge&message=plan+my+trip"))
			req.Host, req.RemoteAddr = tc.host, cmp.Or(tc.remote, client)
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			for i := 0; i+1 < len(tc.headers); i += 2 {
				req.Header.Set(tc.headers[i], tc.headers[i+1])
			}
			before := conversations()
			rec := httptest.NewRecorder()
			NewServer(tc.cfg).ServeHTTP(rec, req)
			if rec.Code != want {
				t.Fatalf("%s %s = %d %q, want %d", method, path, rec.Code, rec.Body.String(), want)
			}
			if !tc.refused {
				return
			}
			if body := rec.Body.String(); !strings.Contains(body, "This request came from another site and was refused.") {
				t.Errorf("refused with %q, want the reason", body)
			}
			if got := conversations(); got != before {
				t.Errorf("a refused request recorded %d conversations", got-before)
			}
			if ck := rec.Result().Cookies(); len(ck) != 0 {
				t.Errorf("a refused request set cookies %+v", ck)
			}
		})
	}
}
