package e2e

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"
)

// These tests speak plain HTTP to the real binary, as a script (or an
// attacker) would: the browser's part in them is only its cookie jar.

// httpClient is a cookie jar that sends its requests from the loopback
// address from, as a client on a network of its own would.
type httpClient struct {
	t    *testing.T
	base string
	c    *http.Client
}

func newHTTPClient(t *testing.T, a *app, from string) *httpClient {
	jar, _ := cookiejar.New(nil)
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(from)}}
	return &httpClient{t: t, base: a.URL, c: &http.Client{
		Jar:           jar,
		Transport:     &http.Transport{DialContext: d.DialContext},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}}
}

func (h *httpClient) cookie() string {
	u, _ := url.Parse(h.base)
	for _, c := range h.c.Jar.Cookies(u) {
		if c.Name == "sp_session" {
			return c.Value
		}
	}
	return ""
}

func (h *httpClient) setCookie(v string) {
	u, _ := url.Parse(h.base)
	h.c.Jar.SetCookies(u, []*http.Cookie{{Name: "sp_session", Value: v, Path: "/"}})
}

// do sends one request with a deadline and returns its status, body and
// Retry-After; err is set when no answer came.
func (h *httpClient) do(method, path string, form url.Values) (code int, body, retryAfter string, err error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var rd io.Reader
	if form != nil {
		rd = strings.NewReader(form.Encode())
	}
	req, _ := http.NewRequestWithContext(ctx, method, h.base+path, rd)
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	res, err := h.c.Do(req)
	if err != nil {
		return 0, "", "", err
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(b), res.Header.Get("Retry-After"), nil
}

// start posts a first message as the new-chat page does and returns the new
// conversation's id.
func (h *httpClient) start(message string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, h.base+"/c",
		strings.NewReader(url.Values{"agent": {"survey"}, "message": {message}}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	res, err := h.c.Do(req)
	if err != nil {
		return "", err
	}
	res.Body.Close()
	loc := res.Header.Get("Location")
	if res.StatusCode != http.StatusSeeOther || !strings.HasPrefix(loc, "/c/") {
		return "", fmt.Errorf("POST /c = %d to %q", res.StatusCode, loc)
	}
	return strings.TrimPrefix(loc, "/c/"), nil
}

// TestChatsStartedAtOnceStrandNoConversation: two tabs (or a double-click)
// start chats at the same moment with the same cookie. Whichever answer's
// cookie the browser keeps, it still has every conversation, and a request
// a tab sent with the previous cookie still works and moves the tab along.
func TestChatsStartedAtOnceStrandNoConversation(t *testing.T) {
	t.Parallel()
	a := startApp(t)
	first := newHTTPClient(t, a, "127.0.0.1")
	var earlier []string
	for _, m := range []string{"my first chat", "my second chat"} {
		id, err := first.start(m)
		if err != nil {
			t.Fatal(err)
		}
		earlier = append(earlier, id)
	}
	var before string
	for trial := range 5 {
		before = first.cookie()
		const tabs = 3
		ids, cookies := make([]string, tabs), make([]string, tabs)
		var wg sync.WaitGroup
		for i := range tabs {
			tab := newHTTPClient(t, a, "127.0.0.1")
			tab.setCookie(before)
			wg.Go(func() {
				var err error
				if ids[i], err = tab.start(fmt.Sprintf("trial %d, tab %d", trial, i)); err != nil {
					t.Error(err)
				}
				cookies[i] = tab.cookie()
			})
		}
		wg.Wait()
		for _, ck := range cookies {
			if ck != cookies[0] || ck == before {
				t.Fatalf("trial %d: chats started at once were given the sessions %v (from %s); the browser keeps one of them",
					trial, cookies, before)
			}
		}
		earlier = append(earlier, ids...)

		// The browser keeps the last answer's cookie: every conversation
		// is in its sidebar and opens.
		first.setCookie(cookies[tabs-1])
		code, page, _, err := first.do(http.MethodGet, "/new", nil)
		if err != nil || code != http.StatusOK {
			t.Fatalf("GET /new = %d, %v", code, err)
		}
		for _, id := range earlier {
			if !strings.Contains(page, "/c/"+id) {
				t.Errorf("trial %d: conversation %s is missing from the sidebar", trial, id)
			}
		}
		// A tab whose request left with the previous cookie is answered,
		// and given the current one.
		late := newHTTPClient(t, a, "127.0.0.1")
		late.setCookie(before)
		if code, _, _, err := late.do(http.MethodGet, "/c/"+earlier[0], nil); err != nil || code != http.StatusOK {
			t.Errorf("trial %d: a request with the previous cookie = %d, %v; want 200", trial, code, err)
		}
		if late.cookie() != cookies[0] {
			t.Errorf("trial %d: a request with the previous cookie was not moved to the current one", trial)
		}
	}
	// Someone on another network holding the previous cookie, or a
	// made-up one, reads nothing.
	for _, ck := range []string{before, strings.Repeat("0", 32)} {
		thief := newHTTPClient(t, a, "127.0.0.9")
		thief.setCookie(ck)
		if code, _, _, _ := thief.do(http.MethodGet, "/c/"+earlier[0], nil); code != http.StatusNotFound {
			t.Errorf("the cookie %s from elsewhere reads a conversation: %d, want 404", ck, code)
		}
	}
}

// TestOneClientCannotLockOthersOut opens hundreds of streams from a few
// addresses against a server with 256 file descriptors, with sessions it
// was issued and with made-up ones. A made-up session holds no stream; the
// rest are bounded per session, per address and in all, refused with 429 or
// 503 and Retry-After, never 500; and a new visitor still gets the health
// check, the new-chat page and a new conversation.
func TestOneClientCannotLockOthersOut(t *testing.T) {
	t.Parallel()
	a := startAppUnder(t, 256)
	madeUp := newHTTPClient(t, a, "127.0.0.1")
	madeUp.setCookie("0123456789abcdef0123456789abcdef")
	if code, body, _, err := madeUp.do(http.MethodGet, "/debug/stream", nil); err != nil || code != http.StatusNotFound {
		t.Errorf("the calls stream of a session the server never issued = %d %q %v, want 404", code, body, err)
	}

	type stream struct {
		cancel context.CancelFunc
		body   io.Closer
	}
	var (
		held    []stream
		counts  = map[int]int{}
		failure []string
	)
	defer func() {
		for _, s := range held {
			s.cancel()
			s.body.Close()
		}
	}()
	for host := 1; host <= 5; host++ {
		attacker := newHTTPClient(t, a, fmt.Sprintf("127.0.0.%d", host))
		var sessions []string
		for range 2 {
			if _, err := attacker.start("hello"); err != nil {
				t.Fatal(err)
			}
			sessions = append(sessions, attacker.cookie())
		}
		for i := range 60 {
			ctx, cancel := context.WithCancel(context.Background())
			req, _ := http.NewRequestWithContext(ctx, http.MethodGet, a.URL+"/debug/stream", nil)
			req.AddCookie(&http.Cookie{Name: "sp_session", Value: sessions[i%2]})
			timer := time.AfterFunc(patience(10*time.Second), cancel)
			res, err := attacker.c.Transport.RoundTrip(req)
			timer.Stop()
			switch {
			case err != nil:
				failure = append(failure, fmt.Sprintf("stream %d from 127.0.0.%d: %v", i, host, err))
				cancel()
			case res.StatusCode == http.StatusOK:
				held = append(held, stream{cancel, res.Body})
			default:
				b, _ := io.ReadAll(res.Body)
				res.Body.Close()
				cancel()
				if res.Header.Get("Retry-After") == "" {
					failure = append(failure, fmt.Sprintf("a refused stream = %d %q with no Retry-After", res.StatusCode, b))
				}
			}
			if err == nil {
				counts[res.StatusCode]++
			}
		}
	}
	for _, f := range failure[:min(len(failure), 5)] {
		t.Error(f)
	}
	for code, n := range counts {
		if code != http.StatusOK && code != http.StatusTooManyRequests && code != http.StatusServiceUnavailable {
			t.Errorf("%d streams were answered %d", n, code)
		}
	}
	if counts[http.StatusOK] == 0 || counts[http.StatusTooManyRequests] == 0 || counts[http.StatusServiceUnavailable] == 0 {
		t.Errorf("streams answered %v: want some held, some refused for the address, some for the server", counts)
	}

	// With all of that open, a new visitor is served.
	visitor := newHTTPClient(t, a, "127.0.0.200")
	for _, path := range []string{"/healthz", "/"} {
		if code, body, _, err := visitor.do(http.MethodGet, path, nil); err != nil || code != http.StatusOK {
			t.Errorf("a new visitor's GET %s = %d %v %.200q", path, code, err, body)
		}
	}
	if _, err := visitor.start("I just arrived"); err != nil {
		t.Errorf("a new visitor could not start a conversation: %v", err)
	}
	if log := a.log(); strings.Contains(log, "too many open files") || strings.Contains(log, "unable to open") {
		t.Errorf("the server ran out of descriptors:\n%s", log)
	}
}
