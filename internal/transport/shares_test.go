package transport

import (
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sweatpants-go/sweatpants/examples/demo"
	"github.com/sweatpants-go/sweatpants/internal/calls"
	"github.com/sweatpants-go/sweatpants/internal/chat"
	"github.com/sweatpants-go/sweatpants/internal/kindset"
	"github.com/sweatpants-go/sweatpants/internal/offline"
	"github.com/sweatpants-go/sweatpants/internal/registry"
	"github.com/sweatpants-go/sweatpants/internal/share"
	"github.com/sweatpants-go/sweatpants/internal/store"
	"github.com/sweatpants-go/sweatpants/internal/store/storetest"
)

// storeClock is the store's clock in a test: it moves when the test moves it.
type storeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *storeClock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *storeClock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// newSharesApp serves the demo agents with shared links, over a store
// whose clock the test moves, into which the access log is written.
func newSharesApp(t *testing.T, clk *storeClock, logs io.Writer) *testApp {
	t.Helper()
	db := storetest.Open(t, store.Options{Now: clk.now})
	svc := chat.New(chat.Config{Store: db, Assistants: registry.New(demo.Agents(demo.Options{})...), Kinds: kindset.New(demo.Kinds()...), Model: offline.New(), DecideByRule: true})
	server, h := newServer(Config{Chat: svc, Calls: calls.New(db, svc), Log: slog.New(slog.NewTextHandler(logs, nil)), Shares: share.New(db)})
	srv := httptest.NewServer(h)
	t.Cleanup(func() {
		srv.Close()
		svc.Close()
	})
	return &testApp{srv: srv, db: db, svc: svc, server: server}
}

// shareVia asks for a link to conv at node with expiry as a script does,
// and returns the status and the link's path.
func (b *browser) shareVia(conv, node, expiry string) (int, string) {
	b.t.Helper()
	code, body := b.do(http.MethodPost, "/c/"+conv+"/shares", "application/x-www-form-urlencoded",
		url.Values{"node": {node}, "expiry": {expiry}}.Encode(), "Accept", "application/json")
	var made shareMade
	if code == http.StatusCreated {
		if err := json.Unmarshal([]byte(body), &made); err != nil {
			b.t.Fatalf("the link made: %v: %s", err, body)
		}
	}
	return code, made.URL
}

// sharedTexts opens a link's JSON and returns its status and each step's
// kind and text.
func (b *browser) sharedTexts(path string) (int, []string) {
	b.t.Helper()
	code, body := b.do(http.MethodGet, path+".json", "", "")
	var br share.Branch
	if code != http.StatusOK {
		return code, nil
	}
	if err := json.Unmarshal([]byte(body), &br); err != nil {
		b.t.Fatalf("%s: %v", path, err)
	}
	var out []string
	for _, it := range br.Items {
		out = append(out, it.Kind+": "+it.Text)
	}
	return code, out
}

// A link shows the branch as it stood when it was made, to a reader with
// no session, whatever the conversation says later; another session can
// neither make nor revoke one; a bad node or expiry is refused and records
// nothing; an expired or revoked link is gone, as one that never was; and
// the token is never in the log.
func TestASharedLinkShowsTheBranchAsItStood(t *testing.T) {
	clk := &storeClock{t: time.Now()}
	var logs syncBuffer
	a := newSharesApp(t, clk, &logs)
	alice, bob, reader := a.browser(t), a.browser(t), a.browser(t)
	conv := alice.start("assistant", "first words")
	alice.settled(t, conv)

	code, link := alice.shareVia(conv, "", "")
	if code != http.StatusCreated || !strings.HasPrefix(link, "/s/") {
		t.Fatalf("sharing: %d %q", code, link)
	}
	if code, body := alice.do(http.MethodPost, "/c/"+conv+"/messages", "application/json", `{"message":"later words"}`); code >= 300 {
		t.Fatalf("sending more: %d %s", code, body)
	}
	alice.settled(t, conv)

	code, got := reader.sharedTexts(link)
	if code != http.StatusOK || len(got) < 2 || got[0] != "message: first words" {
		t.Fatalf("the shared branch: %d %q, want it to start with the first message", code, got)
	}
	for _, s := range got {
		if strings.Contains(s, "later words") {
			t.Errorf("the shared branch shows what was said after: %q", got)
		}
	}
	if code, body := reader.do(http.MethodGet, link, "", ""); code != http.StatusOK || !strings.Contains(body, "first words") ||
		strings.Contains(body, "later words") || strings.Contains(body, "<form") || strings.Contains(body, "datastar") {
		t.Errorf("the shared page: %d, want the branch to read, no form, no stream:\n%s", code, body)
	}
	res, err := http.Get(a.srv.URL + link)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if h := res.Header; h.Get("Referrer-Policy") != "no-referrer" || !strings.Contains(h.Get("X-Robots-Tag"), "noindex") ||
		h.Get("Content-Security-Policy") == "" || h.Get("Set-Cookie") != "" {
		t.Errorf("the shared page's headers: %v", h)
	}
	if u, _ := url.Parse(a.srv.URL); len(reader.c.Jar.Cookies(u)) != 0 {
		t.Error("reading a shared link gave the reader a session")
	}
	if code, body := alice.do(http.MethodGet, "/c/"+conv+"/export.json", "", ""); code != http.StatusOK || !strings.Contains(body, "later words") {
		t.Errorf("the owner's export of HEAD: %d %s", code, body)
	}
	nodes, err := a.db.Nodes(t.Context(), conv)
	if err != nil {
		t.Fatal(err)
	}
	first := strconv.FormatInt(nodes[0].ID, 10)
	if code, body := alice.do(http.MethodGet, "/c/"+conv+"/export.json?node="+first, "", ""); code != http.StatusOK ||
		!strings.Contains(body, "first words") || strings.Contains(body, "later words") {
		t.Errorf("the owner's export of node %s: %d %s", first, code, body)
	}
	for _, node := range []string{"99999", "x", "-1"} {
		if code, _ := alice.do(http.MethodGet, "/c/"+conv+"/export.json?node="+node, "", ""); code != http.StatusBadRequest {
			t.Errorf("an export of node %q: %d, want 400", node, code)
		}
	}

	t.Run("refusals record nothing", func(t *testing.T) {
		bob.start("assistant", "bob's own")
		for _, c := range []struct {
			who          *browser
			node, expiry string
			want         int
		}{
			{bob, "", "", http.StatusNotFound},
			{alice, "99999", "", http.StatusBadRequest},
			{alice, "x", "", http.StatusBadRequest},
			{alice, "", "10m", http.StatusBadRequest},
			{alice, "", "31d", http.StatusBadRequest},
			{alice, "", "forever", http.StatusBadRequest},
		} {
			if code, _ := c.who.shareVia(conv, c.node, c.expiry); code != c.want {
				t.Errorf("node %q expiry %q: %d, want %d", c.node, c.expiry, code, c.want)
			}
		}
		if code, body := alice.do(http.MethodPost, "/c/"+conv+"/shares", "application/x-www-form-urlencoded", "expiry=forever"); code != http.StatusBadRequest || !strings.Contains(body, "from 1h to 30d") {
			t.Errorf("a form with a bad expiry: %d, want 400 with why:\n%s", code, body)
		}
		if code, _ := bob.do(http.MethodGet, "/c/"+conv+"/shares", "", ""); code != http.StatusNotFound {
			t.Errorf("bob lists alice's links: %d, want 404", code)
		}
		if code, _ := bob.do(http.MethodGet, "/c/"+conv+"/export.json", "", ""); code != http.StatusNotFound {
			t.Errorf("bob exports alice's conversation: %d, want 404", code)
		}
		_, ls, err := share.New(a.db).List(t.Context(), alice.sessionID(), conv)
		if err != nil || len(ls) != 1 {
			t.Fatalf("alice's links: %d, %v; want the one made", len(ls), err)
		}
		if code, _ := bob.do(http.MethodPost, "/c/"+conv+"/shares/"+itoa(ls[0].ID)+"/revoke", "application/x-www-form-urlencoded", ""); code != http.StatusNotFound {
			t.Errorf("bob revokes alice's link: %d, want 404", code)
		}
		if code, _ := reader.sharedTexts(link); code != http.StatusOK {
			t.Errorf("after bob's revoke the link is %d", code)
		}
	})

	t.Run("an expired link is gone", func(t *testing.T) {
		_, hour := alice.shareVia(conv, "", "1h")
		if code, _ := reader.sharedTexts(hour); code != http.StatusOK {
			t.Fatalf("a new link: %d", code)
		}
		clk.advance(time.Hour)
		if code, body := reader.do(http.MethodGet, hour, "", "", "Accept", "text/html"); code != http.StatusNotFound || !strings.Contains(body, "no such shared link") {
			t.Errorf("an hour later: %d, want 404 with a page that says so:\n%s", code, body)
		}
	})

	t.Run("revoked, it is gone as one that never was", func(t *testing.T) {
		_, ls, _ := share.New(a.db).List(t.Context(), alice.sessionID(), conv)
		code, body := alice.do(http.MethodPost, "/c/"+conv+"/shares/"+itoa(ls[0].ID)+"/revoke", "application/x-www-form-urlencoded", "")
		if code != http.StatusSeeOther {
			t.Fatalf("revoking: %d %s", code, body)
		}
		for _, path := range []string{link, "/s/never-made-this-one"} {
			if code, _ := reader.sharedTexts(path); code != http.StatusNotFound {
				t.Errorf("%s: %d, want 404", path, code)
			}
		}
	})

	if token := strings.TrimPrefix(link, "/s/"); strings.Contains(logs.String(), token) {
		t.Errorf("the log holds the token:\n%s", logs.String())
	}
	if !strings.Contains(logs.String(), "route=/s/:token") {
		t.Errorf("the access log has no line of the shared page:\n%s", logs.String())
	}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// syncBuffer is a log's output that the server writes while the test
// reads it.
type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
