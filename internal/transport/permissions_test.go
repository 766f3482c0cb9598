package transport

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/net/html"

	"github.com/sweatpants-go/sweatpants/examples/demo"
	"github.com/sweatpants-go/sweatpants/internal/apperr"
	"github.com/sweatpants-go/sweatpants/internal/calls"
	"github.com/sweatpants-go/sweatpants/internal/chat"
	"github.com/sweatpants-go/sweatpants/internal/kindset"
	"github.com/sweatpants-go/sweatpants/internal/offline"
	"github.com/sweatpants-go/sweatpants/internal/registry"
	"github.com/sweatpants-go/sweatpants/internal/store/storetest"
)

// alwaysRules stands for the chat service's always rules: each session's
// own, revoked one at a time.
type alwaysRules struct {
	mu    sync.Mutex
	rules []AlwaysRule
}

func (a *alwaysRules) AlwaysAllowed(_ context.Context, session string) ([]AlwaysRule, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	var out []AlwaysRule
	for _, r := range a.rules {
		if r.Session == session {
			out = append(out, r)
		}
	}
	return out, nil
}

func (a *alwaysRules) RevokeAlways(_ context.Context, session string, id int64) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	i := slices.IndexFunc(a.rules, func(r AlwaysRule) bool { return r.ID == id && r.Session == session })
	if i < 0 {
		return apperr.Errorf(apperr.NotFound, "There is no always-allow rule %d.", id)
	}
	a.rules = slices.Delete(a.rules, i, i+1)
	return nil
}

// newPermissionsApp serves the demo agents with perms as the settings
// page's permissions and program as the program's rules.
func newPermissionsApp(t *testing.T, perms Permissions, program []string) *testApp {
	t.Helper()
	db := storetest.Open(t)
	svc := chat.New(chat.Config{Store: db, Assistants: registry.New(demo.Agents(demo.Options{})...), Kinds: kindset.New(demo.Kinds()...), Model: offline.New(), DecideByRule: true})
	srv := httptest.NewServer(NewServer(Config{Chat: svc, Calls: calls.New(db, svc), Log: slog.New(slog.NewTextHandler(io.Discard, nil)),
		Permissions: perms, ProgramRules: program}))
	t.Cleanup(func() {
		srv.Close()
		svc.Close()
	})
	return &testApp{srv: srv, db: db, svc: svc}
}

// permissionsPage loads the settings page, or posts to it, and returns the
// status, the tools listed as always allowed and the problem shown.
func (b *browser) permissionsPage(method, path string) (int, []string, string) {
	b.t.Helper()
	ct := ""
	if method == http.MethodPost {
		ct = "application/x-www-form-urlencoded"
	}
	code, body := b.do(method, path, ct, "")
	if code == http.StatusSeeOther {
		code, body = b.do(http.MethodGet, "/settings/permissions", "", "")
	}
	doc, err := html.Parse(strings.NewReader(body))
	if err != nil {
		b.t.Fatal(err)
	}
	var tools []string
	var problem string
	for n := range doc.Descendants() {
		switch attrOf(n, "data-testid") {
		case "always-rule":
			tools = append(tools, attrOf(n, "data-rule")+" "+strings.TrimSuffix(textOf(n), "Revoke"))
		case "permissions-problem":
			problem = textOf(n)
		}
	}
	return code, tools, problem
}

func textOf(n *html.Node) string {
	var b strings.Builder
	for d := range n.Descendants() {
		if d.Type == html.TextNode {
			b.WriteString(d.Data)
		}
	}
	return strings.Join(strings.Fields(b.String()), " ")
}

// The settings page lists the tools the session always allows, each with
// a Revoke button that revokes it; another session's rules are neither
// shown nor revoked, and a rule revoked already says so in place. The
// program's rules are there to read.
func TestThePermissionsPageRevokesTheSessionsAlwaysRules(t *testing.T) {
	perms := &alwaysRules{}
	a := newPermissionsApp(t, perms, []string{"deny flights/cancel* (policy.rules:1)", "allow flights/search (policy.rules:2)"})
	alice, bob := a.browser(t), a.browser(t)
	alice.newConversation("concierge")
	bob.newConversation("concierge")
	day := time.Date(2026, 11, 26, 10, 0, 0, 0, time.UTC)
	perms.rules = []AlwaysRule{
		{ID: 1, Session: alice.sessionID(), Agent: "flights", Tool: "book", Created: day},
		{ID: 2, Session: bob.sessionID(), Agent: "notes", Tool: "write", Created: day},
		{ID: 3, Session: alice.sessionID(), Agent: "notes", Tool: "write", Created: day},
	}

	code, tools, _ := alice.permissionsPage(http.MethodGet, "/settings/permissions")
	if want := []string{"1 book of flights since 2026-11-26 10:00", "3 write of notes since 2026-11-26 10:00"}; code != http.StatusOK || !slices.Equal(tools, want) {
		t.Fatalf("alice's page: %d %q, want %q", code, tools, want)
	}
	_, body := alice.do(http.MethodGet, "/settings/permissions", "", "")
	if !strings.Contains(body, "deny flights/cancel* (policy.rules:1)") || !strings.Contains(body, `aria-label="Revoke: always allow book of flights"`) {
		t.Errorf("the page lacks the program's rules or a named Revoke:\n%s", body)
	}

	if code, tools, _ := alice.permissionsPage(http.MethodPost, "/settings/permissions/1/revoke"); code != http.StatusOK || len(tools) != 1 || !strings.HasPrefix(tools[0], "3 ") {
		t.Errorf("after revoking book: %d %q, want write alone", code, tools)
	}
	for _, path := range []string{"/settings/permissions/1/revoke", "/settings/permissions/2/revoke", "/settings/permissions/x/revoke"} {
		code, tools, problem := alice.permissionsPage(http.MethodPost, path)
		if code != http.StatusNotFound || problem == "" || len(tools) != 1 {
			t.Errorf("POST %s: %d %q %q, want 404 with the problem, the rules as they were", path, code, tools, problem)
		}
	}
	if _, tools, _ := bob.permissionsPage(http.MethodGet, "/settings/permissions"); len(tools) != 1 || !strings.HasPrefix(tools[0], "2 ") {
		t.Errorf("bob's page after alice's revokes: %q, want his rule", tools)
	}
}

// Without always rules to keep, the page says so rather than failing.
func TestThePermissionsPageWithoutAlwaysRules(t *testing.T) {
	b := newTestApp(t).browser(t)
	code, body := b.do(http.MethodGet, "/settings/permissions", "", "")
	if code != http.StatusOK || !strings.Contains(body, "This program keeps no always-allow choices.") {
		t.Errorf("GET /settings/permissions = %d:\n%s", code, body)
	}
}
