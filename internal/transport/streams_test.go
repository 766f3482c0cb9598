package transport

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/sweatpants-go/sweatpants/internal/apperr"
	"github.com/sweatpants-go/sweatpants/internal/calls"
)

// TestStreamsAreBoundedPerSessionPerClientAndInAll: no session, no client
// and no crowd of clients holds more than its share.
func TestStreamsAreBoundedPerSessionPerClientAndInAll(t *testing.T) {
	l := newStreamLimit(2, 3, 5)
	take := func(session, client string) (func(), apperr.Code) {
		t.Helper()
		release, err := l.acquire(session, client)
		if err != nil {
			return nil, apperr.CodeOf(err)
		}
		return release, ""
	}
	steps := []struct {
		session, client string
		want            apperr.Code
	}{
		{"s1", "a", ""},
		{"s1", "a", ""},
		{"s1", "a", apperr.TooMany}, // the session's share
		{"s2", "a", ""},
		{"s3", "a", apperr.TooMany}, // the client's share, whatever the session
		{"s4", "b", ""},
		{"s5", "c", ""},
		{"s6", "d", apperr.Unavailable}, // the server's total
	}
	var releases []func()
	for i, st := range steps {
		release, got := take(st.session, st.client)
		if got != st.want {
			t.Fatalf("step %d (%s from %s) = %q, want %q", i, st.session, st.client, got, st.want)
		}
		if release != nil {
			releases = append(releases, release)
		}
	}
	releases[0]() // s1 from a closes one
	if _, got := take("s6", "d"); got != "" {
		t.Errorf("after a stream closed, another client's = %q, want room", got)
	}
	if _, got := take("s7", "a"); got != apperr.Unavailable {
		t.Errorf("with the server full again = %q, want Unavailable", got)
	}
}

// TestStreamRefusalsSayWhenToComeBack: a stream refused for a limit is 503
// or 429 with Retry-After, never 500; one with a made-up session id holds
// no stream at all.
func TestStreamRefusalsSayWhenToComeBack(t *testing.T) {
	a := newTestApp(t)
	srv := httptest.NewServer(NewServer(Config{Chat: a.svc, Calls: calls.New(a.db, a.svc), Log: slog.New(slog.DiscardHandler), MaxStreamsTotal: 1}))
	t.Cleanup(srv.Close)
	b := a.browser(t)
	b.start("concierge", "hello")
	get := func(cookie string) (*http.Response, string, context.CancelFunc) {
		ctx, cancel := context.WithCancel(context.Background())
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL+"/debug/stream", nil)
		req.AddCookie(&http.Cookie{Name: sessionCookie, Value: cookie})
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		if res.StatusCode != http.StatusOK {
			body, _ := io.ReadAll(res.Body)
			res.Body.Close()
			return res, string(body), cancel
		}
		return res, "", cancel
	}
	res, body, cancel := get("0123456789abcdef0123456789abcdef")
	cancel()
	if res.StatusCode != http.StatusNotFound {
		t.Errorf("a made-up session's calls stream = %d %q, want 404", res.StatusCode, body)
	}
	res, _, cancel = get(b.cookie())
	defer cancel()
	if res.StatusCode != http.StatusOK {
		t.Fatalf("the first stream = %d, want 200", res.StatusCode)
	}
	res, body, cancel2 := get(b.cookie())
	cancel2()
	if res.StatusCode != http.StatusServiceUnavailable || res.Header.Get("Retry-After") == "" || !strings.Contains(body, "reload in a little while") {
		t.Errorf("a stream past the server's total = %d Retry-After %q %q, want 503 with Retry-After saying why",
			res.StatusCode, res.Header.Get("Retry-After"), body)
	}
}
