package transport

import (
	"bufio"
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/sweatpants-go/sweatpants/examples/demo"
	"github.com/sweatpants-go/sweatpants/internal/calls"
	"github.com/sweatpants-go/sweatpants/internal/chat"
	"github.com/sweatpants-go/sweatpants/internal/kindset"
	"github.com/sweatpants-go/sweatpants/internal/offline"
	"github.com/sweatpants-go/sweatpants/internal/registry"
	"github.com/sweatpants-go/sweatpants/internal/store"
	"github.com/sweatpants-go/sweatpants/internal/store/storetest"
	"github.com/sweatpants-go/sweatpants/internal/tree"
)

// testApp is the real handler over real HTTP with a real SQLite file.
type testApp struct {
	srv    *httptest.Server
	db     *store.DB
	svc    *chat.Service
	server *Server
}

// newTestApp serves the demo agents and the offline model.
func newTestApp(t testing.TB) *testApp {
	t.Helper()
	return newTestAppWith(t, chat.Config{Assistants: registry.New(demo.Agents(demo.Options{})...), Kinds: kindset.New(demo.Kinds()...), Model: offline.New()})
}

// newTestAppWith serves a service configured by cfg on a fresh database,
// which it sets as cfg's Store; each of more then sets what else the
// server is configured with, over that database.
func newTestAppWith(t testing.TB, cfg chat.Config, more ...func(*store.DB, *Config)) *testApp {
	t.Helper()
	db := storetest.Open(t)
	cfg.Store = db
	if _, ok := cfg.Model.(*offline.Provider); ok {
		cfg.DecideByRule = true // as the app has it
	}
	svc := chat.New(cfg)
	sc := Config{Chat: svc, Calls: calls.New(db, svc), Log: slog.New(slog.NewTextHandler(io.Discard, nil)), MaxBody: 4 << 10}
	for _, set := range more {
		set(db, &sc)
	}
	server, h := newServer(sc)
	srv := httptest.NewServer(h)
	t.Cleanup(func() {
		srv.Close()
		svc.Close()
	})
	return &testApp{srv: srv, db: db, svc: svc, server: server}
}

// browser is one browser session: a cookie jar, and the app's origin on POSTs.
type browser struct {
	t   *testing.T
	app *testApp
	c   *http.Client
}

func (a *testApp) browser(t *testing.T) *browser {
	jar, _ := cookiejar.New(nil)
	return &browser{t: t, app: a, c: &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error {
		return http.ErrUseLastResponse
	}}}
}

func (b *browser) do(method, path, contentType, body string, header ...string) (int, string) {
	b.t.Helper()
	req, err := http.NewRequest(method, b.app.srv.URL+path, strings.NewReader(body))
	if err != nil {
		b.t.Fatal(err)
	}
	if method == http.MethodPost {
		req.Header.Set("Origin", b.app.srv.URL)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	res, err := b.c.Do(req)
	if err != nil {
		b.t.Fatal(err)
	}
	defer res.Body.Close()
	out, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(out)
}

// newConversation creates a conversation with the named agent and returns its id.
func (b *browser) newConversation(agent string) string {
	b.t.Helper()
	req, _ := http.NewRequest(http.MethodPost, b.app.srv.URL+"/c", strings.NewReader(url.Values{"agent": {agent}}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", b.app.srv.URL)
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

var elicitIDRe = regexp.MustCompile(`data-elicit-id="([^"]+)"`)

// pendingElicit sends a message and reads the conversation's stream until a
// pending elicit appears; it returns the elicit's id.
func (b *browser) pendingElicit(conv, message string) string {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, b.app.srv.URL+"/c/"+conv+"/stream", nil)
	res, err := b.c.Do(req)
	if err != nil {
		b.t.Fatal(err)
	}
	defer res.Body.Close()
	if code, body := b.do(http.MethodPost, "/c/"+conv+"/messages", "application/json", `{"message":"`+message+`"}`); code != http.StatusNoContent {
		b.t.Fatalf("send message = %d %s", code, body)
	}
	sc := bufio.NewScanner(res.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if strings.Contains(line, `data-state="pending"`) {
			if m := elicitIDRe.FindStringSubmatch(line); m != nil {
				return m[1]
			}
		}
	}
	b.t.Fatalf("no pending elicit on the stream: %v", sc.Err())
	return ""
}

func (a *testApp) nodeCount(t *testing.T, conv string) int {
	t.Helper()
	nodes, err := a.db.Nodes(context.Background(), conv)
	if err != nil {
		t.Fatal(err)
	}
	return len(nodes)
}

func TestBadRequestsGetClearAnswers(t *testing.T) {
	a := newTestApp(t)
	owner := a.browser(t)
	conv := owner.newConversation("survey")
	eid := owner.pendingElicit(conv, "2")
	before := a.nodeCount(t, conv)
	answerPath := "/c/" + conv + "/elicits/" + eid

	for _, tc := range []struct {
		name        string
		who         *browser
		method      string
		path        string
		contentType string
		body        string
		header      []string
		wantStatus  int
		wantBody    string
	}{
		{"unknown conversation page", owner, "GET", "/c/doesnotexist", "", "", nil, 404, `There is no conversation "doesnotexist".`},
		{"unknown conversation stream", owner, "GET", "/c/doesnotexist/stream", "", "", nil, 404, "There is no conversation"},
		{"message to unknown conversation", owner, "POST", "/c/nope/messages", "application/json", `{"message":"hi"}`, nil, 404, "There is no conversation"},
		{"answer to unknown elicit", owner, "POST", "/c/" + conv + "/elicits/9999-1", "application/json", `{"action":"decline"}`, nil, 404, `There is no question "9999-1"`},
		{"another session's page", a.browser(t), "GET", "/c/" + conv, "", "", nil, 404, "There is no conversation"},
		{"another session's stream", a.browser(t), "GET", "/c/" + conv + "/stream", "", "", nil, 404, "There is no conversation"},
		{"another session answers", a.browser(t), "POST", answerPath, "application/json", `{"action":"accept","content":{"answer":"x"}}`, nil, 404, "There is no conversation"},
		{"new chat with an unknown agent", owner, "POST", "/c", "application/x-www-form-urlencoded", "agent=nosuch", nil, 400, `There is no agent "nosuch"; the agents are chat, concierge, `},
		{"malformed JSON answer", owner, "POST", answerPath, "application/json", `{"action":`, nil, 400, "could not be read"},
		{"malformed message", owner, "POST", "/c/" + conv + "/messages", "application/json", `{"message":`, nil, 400, "could not be read"},
		{"message without text field", owner, "POST", "/c/" + conv + "/messages", "application/json", `{}`, nil, 400, `no "message"`},
		{"unknown action", owner, "POST", answerPath, "application/json", `{"action":"maybe"}`, nil, 400, `"maybe" is not an action`},
		{"wrong content type", owner, "POST", answerPath, "text/plain", `accept`, nil, 400, "as a form or as JSON"},
		{"content breaking the schema", owner, "POST", answerPath, "application/json", `{"action":"accept","content":{"answer":7}}`, nil, 422, "answer: must be text"},
		{"extra field", owner, "POST", answerPath, "application/json", `{"action":"accept","content":{"answer":"ok","admin":true}}`, nil, 422, "admin: is not a field of this form"},
		{"missing required field", owner, "POST", answerPath, "application/json", `{"action":"accept","content":{}}`, nil, 422, "answer: is required"},
		{"action the kind does not allow", owner, "POST", answerPath, "application/json", `{"action":"denied"}`, nil, 400, `this request does not allow "denied"`},
		{"unknown field beside the answer", owner, "POST", answerPath, "application/json", `{"action":"decline","admin":true}`, nil, 400, `a field "admin" this request does not take`},
		{"content of the wrong shape", owner, "POST", answerPath, "application/json", `{"action":"accept","content":["ok"]}`, nil, 422, "must be an object"},
		{"body over the limit", owner, "POST", answerPath, "application/json", `{"action":"accept","content":{"answer":"` + strings.Repeat("x", 5000) + `"}}`, nil, 413, "larger than the 4 KiB limit"},
		{"message over the limit", owner, "POST", "/c/" + conv + "/messages", "application/json", `{"message":"` + strings.Repeat("x", 5000) + `"}`, nil, 413, "larger than the 4 KiB limit"},
		{"cross-site POST", owner, "POST", answerPath, "application/json", `{"action":"decline"}`, []string{"Origin", "http://evil.example", "Sec-Fetch-Site", "cross-site"}, 403, "another site"},
		{"cross-origin POST without fetch metadata", owner, "POST", answerPath, "application/json", `{"action":"decline"}`, []string{"Origin", "http://evil.example"}, 403, "another site"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.who.t = t
			code, body := tc.who.do(tc.method, tc.path, tc.contentType, tc.body, tc.header...)
			if code != tc.wantStatus || !strings.Contains(body, tc.wantBody) {
				t.Errorf("got %d %q, want %d containing %q", code, body, tc.wantStatus, tc.wantBody)
			}
		})
	}
	owner.t = t
	if got := a.nodeCount(t, conv); got != before {
		t.Errorf("bad requests changed the record: %d nodes, want %d", got, before)
	}

	t.Run("a second answer is a conflict and the first stands", func(t *testing.T) {
		owner.t = t
		if code, body := owner.do("POST", answerPath, "application/json", `{"action":"accept","content":{"answer":"first"}}`); code != 204 {
			t.Fatalf("first answer = %d %q, want 204", code, body)
		}
		code, body := owner.do("POST", answerPath, "application/json", `{"action":"accept","content":{"answer":"second"}}`)
		if code != 409 || !strings.Contains(body, "already answered; the first answer stands") {
			t.Errorf("second answer = %d %q, want 409", code, body)
		}
		nodes, _ := a.db.Nodes(context.Background(), conv)
		var answers []string
		for _, n := range nodes {
			if n.Kind == "response" && n.Ref == eid {
				answers = append(answers, string(n.Payload))
			}
		}
		if len(answers) != 1 || !strings.Contains(answers[0], "first") {
			t.Errorf("recorded answers = %v, want only the first", answers)
		}
	})
}

func TestFormAnswerIsConvertedAndValidated(t *testing.T) {
	a := newTestApp(t)
	b := a.browser(t)
	conv := b.newConversation("concierge")
	eid := b.pendingElicit(conv, "a trip")
	path := "/c/" + conv + "/elicits/" + eid
	form := url.Values{"_action": {"accept"}, "destination": {"Rome"}, "travellers": {"ten"}, "cabin": {"economy"}, "hotel": {"true"}}
	code, body := b.do("POST", path, "application/x-www-form-urlencoded", form.Encode())
	if code != 422 || !strings.Contains(body, "travellers: must be a whole number") {
		t.Errorf("non-numeric travellers = %d %q, want 422 naming the field", code, body)
	}
	form.Set("travellers", "2")
	if code, body := b.do("POST", path, "application/x-www-form-urlencoded", form.Encode()); code != 204 {
		t.Fatalf("valid form = %d %q, want 204", code, body)
	}
}

func TestAnswerToAWithdrawnQuestionIsAConflict(t *testing.T) {
	a := newTestApp(t)
	b := a.browser(t)
	conv := b.newConversation("concierge")
	eid := b.pendingElicit(conv, "a trip")
	if code, body := b.do("POST", "/c/"+conv+"/stop", "", ""); code != 204 {
		t.Fatalf("stop = %d %q, want 204", code, body)
	}
	// At once, before the stopped turn has recorded its end.
	code, body := b.do("POST", "/c/"+conv+"/elicits/"+eid, "application/json", `{"action":"decline"}`)
	if code != 409 || !strings.Contains(body, "no longer waiting for an answer") {
		t.Errorf("answer after stop = %d %q, want 409 saying the question was withdrawn", code, body)
	}
	var nodes []tree.Node
	deadline := time.Now().Add(10 * time.Second)
	for len(nodes) == 0 || nodes[len(nodes)-1].Kind != tree.Stopped {
		if time.Now().After(deadline) {
			t.Fatalf("the turn did not record that it stopped: %+v", nodes)
		}
		time.Sleep(5 * time.Millisecond) // polling the database for a condition, with a deadline
		var err error
		if nodes, err = a.db.Nodes(context.Background(), conv); err != nil {
			t.Fatal(err)
		}
	}
	for _, n := range nodes {
		if n.Kind == tree.ElicitResponse {
			t.Errorf("the refused answer was recorded: %+v", n)
		}
	}
}
