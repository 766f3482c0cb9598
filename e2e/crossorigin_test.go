package e2e

import (
	"database/sql"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	_ "modernc.org/sqlite"
)

// TestAPostFromAnotherSiteStartsNothing posts the new-chat form to the real
// binary as a browser that sends no Origin would post it from another
// site's page, which it names in Referer: it is refused, and no session or
// conversation is recorded. The same post without a Referer, as curl or a
// script sends it, still starts a conversation.
func TestAPostFromAnotherSiteStartsNothing(t *testing.T) {
	t.Parallel()
	a := startApp(t)
	post := func(message, referer string) (int, string, []*http.Cookie) {
		t.Helper()
		form := url.Values{"agent": {"concierge"}, "message": {message}}
		req, err := http.NewRequest(http.MethodPost, a.URL+"/c", strings.NewReader(form.Encode()))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		if referer != "" {
			req.Header.Set("Referer", referer)
		}
		c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
		res, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		body, _ := io.ReadAll(res.Body)
		return res.StatusCode, string(body), res.Cookies()
	}

	code, body, cookies := post("spend my credits", "http://evil.example/attack.html")
	if code != http.StatusForbidden || !strings.Contains(body, "This request came from another site and was refused.") {
		t.Errorf("POST /c from another site = %d %q, want 403 saying why", code, body)
	}
	if len(cookies) != 0 {
		t.Errorf("the refused post set cookies %v", cookies)
	}
	if n := count(t, a, `SELECT (SELECT count(*) FROM conversations) + (SELECT count(*) FROM sessions)`); n != 0 {
		t.Errorf("the refused post recorded %d conversations and sessions, want none", n)
	}

	if code, body, _ := post("plan my trip", ""); code != http.StatusSeeOther {
		t.Fatalf("POST /c without Origin or Referer = %d %q, want 303", code, body)
	}
	if n := count(t, a, `SELECT count(*) FROM conversations`); n != 1 {
		t.Errorf("after a refused and an accepted post there are %d conversations, want 1", n)
	}
}

// count runs a counting query on the running app's database file, read
// only, as an operator would look at it.
func count(t *testing.T, a *app, query string) int {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+a.db+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var n int
	if err := db.QueryRow(query).Scan(&n); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	return n
}
