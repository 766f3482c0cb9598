package transport

import (
	"context"
	"fmt"
	"net/http"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/sweatpants-go/sweatpants/examples/demo"
	"github.com/sweatpants-go/sweatpants/internal/chat"
	"github.com/sweatpants-go/sweatpants/internal/files"
	"github.com/sweatpants-go/sweatpants/internal/kindset"
	"github.com/sweatpants-go/sweatpants/internal/offline"
	"github.com/sweatpants-go/sweatpants/internal/registry"
	"github.com/sweatpants-go/sweatpants/internal/store"
)

// testLooks is the record of looks as the program wires it (app).
type testLooks struct{ db *store.DB }

func (l testLooks) ConversationOwner(ctx context.Context, id string) (string, error) {
	return l.db.ConversationOwner(ctx, id)
}

func (l testLooks) UploadOwner(ctx context.Context, id string) (string, error) {
	return l.db.UploadOwner(ctx, id)
}

func (l testLooks) AccountExists(ctx context.Context, id string) (bool, error) {
	return l.db.AccountExists(ctx, id)
}

func (l testLooks) RecordLook(ctx context.Context, lk Look) error {
	return l.db.RecordLook(ctx, store.Look(lk))
}

func (l testLooks) Looks(ctx context.Context, limit int) ([]Look, error) {
	got, err := l.db.Looks(ctx, limit)
	out := make([]Look, len(got))
	for i, lk := range got {
		out[i] = Look(lk)
	}
	return out, err
}

// named sends every request of the client with the proxy's headers naming
// a person, header by header (name, value, ...).
type named struct {
	next   http.RoundTripper
	header []string
}

func (n named) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	for i := 0; i+1 < len(n.header); i += 2 {
		r.Header.Set(n.header[i], n.header[i+1])
	}
	return n.next.RoundTrip(r)
}

// as makes b a browser behind the trusted proxy (127.0.0.2) that names it
// with header, or, with from set, one that sends the same headers itself
// from another address.
func (b *browser) as(from string, header ...string) *browser {
	b.elsewhere(from)
	b.c.Transport = named{next: b.c.Transport, header: header}
	return b
}

// newLooksApp serves the demo chat behind a trusted proxy that names
// people, where op@example.com and the group "ops" are operators.
func newLooksApp(t *testing.T) (*testApp, *files.Store) {
	t.Helper()
	var fs *files.Store
	a := newTestAppWith(t, chat.Config{Assistants: registry.New(demo.Agents(demo.Options{})...), Kinds: kindset.New(demo.Kinds()...), Model: offline.New()},
		func(db *store.DB, cfg *Config) {
			cfg.TrustedProxies = []netip.Prefix{netip.MustParsePrefix("127.0.0.2/32")}
			cfg.SignIn = SignIn{Accounts: testAccounts{db, nil}, TrustedHeader: true, Looks: testLooks{db},
				Operators: Operators{Emails: []string{"op@example.com"}, Groups: []string{"ops"}}}
			fs = files.New(db, files.Options{Limits: files.DefaultLimits(), Spool: t.TempDir()})
			cfg.Files = fs
		})
	return a, fs
}

func (a *testApp) looks(t *testing.T) []Look {
	t.Helper()
	got, err := testLooks{a.db}.Looks(t.Context(), 100)
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// settledAs waits until conversation conv of owner has settled.
func (a *testApp) settledAs(t *testing.T, owner, conv string) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); ; {
		v, err := a.svc.View(t.Context(), owner, conv)
		if err != nil {
			t.Fatal(err)
		}
		if !v.Status.Running || v.Status.Waiting {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("the conversation did not settle")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// An operator reads another account's conversation — its page, tree,
// calls, exports, files and tool audit — each read recorded with who
// looked; every command of theirs on it is refused and records nothing;
// anyone else is refused and nothing is recorded; and a role is not raised
// by headers from anyone but the proxy.
func TestOperatorLooksReadOnlyAndRecorded(t *testing.T) {
	a, fs := newLooksApp(t)
	ann := a.browser(t).as("127.0.0.2", "X-Forwarded-User", "ann", "X-Forwarded-Email", "ann@example.com")
	conv, reply, _ := replied(t, a, ann)
	annID, err := a.db.ConversationOwner(t.Context(), conv)
	if err != nil {
		t.Fatal(err)
	}
	a.settledAs(t, annID, conv)
	f, err := fs.Put(t.Context(), annID, "notes.txt", "text/plain", strings.NewReader("ann's notes"), files.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	op := a.browser(t).as("127.0.0.2", "X-Forwarded-User", "olga", "X-Forwarded-Email", "op@example.com")

	reads := []struct{ path, what, conv string }{
		{"/c/" + conv, "page", conv},
		{"/c/" + conv + "/tree", "tree", conv},
		{"/c/" + conv + "/debug", "calls", conv},
		{"/c/" + conv + "/feedback.json", "export", conv},
		{"/files/" + f.ID, "file", ""},
		{"/tools?owner=" + annID, "audit", ""},
		{"/tools.jsonl?owner=" + annID, "audit", ""},
	}
	for i, r := range reads {
		code, body := op.do("GET", r.path, "", "")
		if code != http.StatusOK {
			t.Fatalf("operator GET %s = %d, want 200", r.path, code)
		}
		looks := a.looks(t)
		if len(looks) != i+1 {
			t.Fatalf("after GET %s: %d looks, want %d", r.path, len(looks), i+1)
		}
		got := looks[0]
		if got.What != r.what || got.Conversation != r.conv || got.Owner != annID || got.OperatorEmail != "op@example.com" || got.OperatorID == "" || got.OperatorID == annID {
			t.Errorf("look of GET %s = %+v, want %s of %s's by op@example.com", r.path, got, r.what, annID)
		}
		switch r.what {
		case "file":
			if body != "ann's notes" {
				t.Errorf("the file reads %q", body)
			}
		case "page", "tree":
			if !strings.Contains(body, `data-testid="looking-banner"`) {
				t.Errorf("GET %s shows no banner saying the look is recorded", r.path)
			}
		}
	}
	_, page := op.do("GET", "/c/"+conv, "", "")
	if strings.Contains(page, `data-testid="composer-input"`) || strings.Contains(page, `data-testid="rename"`) {
		t.Error("the operator's look shows the composer or the conversation's actions")
	}
	if !strings.Contains(page, `inert data-testid="looked-at"`) {
		t.Error("the cards of the operator's look are not inert")
	}
	if _, tools := op.do("GET", "/tools?owner="+annID, "", ""); !strings.Contains(tools, `data-conversation="`+conv+`"`) && !strings.Contains(tools, `data-testid="tools-none"`) {
		t.Error("the tool audit of ann's account shows neither her calls nor that there are none")
	}

	// A stream records one look when it opens.
	before := len(a.looks(t))
	op.openStream("/c/" + conv + "/tree/stream")
	if got := a.looks(t); len(got) != before+1 || got[0].What != "tree" {
		t.Errorf("opening the tree's stream: %d looks (newest %+v), want one more, of the tree", len(got)-before, got[0])
	}

	// Commands are the operator's own: refused as on anyone's conversation.
	nodes, looks := a.nodeCount(t, conv), len(a.looks(t))
	form := "application/x-www-form-urlencoded"
	for _, cmd := range []struct{ path, ct, body string }{
		{"/c/" + conv + "/messages", "application/json", `{"message":"hello from the operator"}`},
		{"/c/" + conv + "/stop", "", ""},
		{"/c/" + conv + "/elicits/1", "application/json", `{"action":"accept","text":"yes"}`},
		{fmt.Sprintf("/c/%s/replies/%d/feedback", conv, reply), form, "rating=down"},
		{"/c/" + conv + "/rename", form, "title=mine"},
		{"/c/" + conv + "/delete", form, ""},
	} {
		if code, _ := op.do("POST", cmd.path, cmd.ct, cmd.body); code != http.StatusNotFound {
			t.Errorf("operator POST %s = %d, want 404", cmd.path, code)
		}
	}
	if got := a.nodeCount(t, conv); got != nodes {
		t.Errorf("the operator's commands made %d nodes, want none", got-nodes)
	}
	if got := len(a.looks(t)); got != looks {
		t.Errorf("the operator's commands recorded %d looks, want none", got-looks)
	}

	// Anyone else: 404 everywhere, and nothing recorded.
	bob := a.browser(t).as("127.0.0.2", "X-Forwarded-User", "bob", "X-Forwarded-Email", "bob@example.com")
	forged := a.browser(t).as("127.0.0.1", "X-Forwarded-User", "olga", "X-Forwarded-Email", "op@example.com", "X-Forwarded-Groups", "ops")
	for _, b := range []struct {
		who string
		b   *browser
	}{{"bob", bob}, {"the operator's headers from an untrusted address", forged}} {
		for _, r := range reads {
			if code, _ := b.b.do("GET", r.path, "", ""); r.what != "audit" && code != http.StatusNotFound {
				t.Errorf("%s: GET %s = %d, want 404", b.who, r.path, code)
			}
		}
		if code, _ := b.b.do("GET", "/operator/looks", "", ""); code != http.StatusNotFound {
			t.Errorf("%s: GET /operator/looks = %d, want 404", b.who, code)
		}
	}
	if got := len(a.looks(t)); got != looks {
		t.Errorf("others' reads recorded %d looks, want none", got-looks)
	}
	// Bob's audit is his own, whatever owner he names.
	if _, tools := bob.do("GET", "/tools?owner="+annID, "", ""); strings.Contains(tools, `data-conversation="`+conv+`"`) {
		t.Error("bob sees ann's tool calls")
	}

	// The operator's own conversation is no look.
	mine, _, _ := replied(t, a, op)
	if code, _ := op.do("GET", "/c/"+mine+"/tree", "", ""); code != http.StatusOK {
		t.Fatalf("operator's own tree = %d", code)
	}
	if got := len(a.looks(t)); got != looks {
		t.Errorf("reading their own recorded %d looks, want none", got-looks)
	}
	// A made-up account's audit is not found, and records nothing.
	if code, _ := op.do("GET", "/tools?owner=nobody", "", ""); code != http.StatusNotFound {
		t.Errorf("the audit of no account = %d, want 404", code)
	}

	// The operators' page lists the looks, newest first.
	code, body := op.do("GET", "/operator/looks", "", "")
	if code != http.StatusOK || strings.Count(body, `data-testid="look"`) != looks || !strings.Contains(body, "op@example.com") {
		t.Errorf("GET /operator/looks = %d, with %d looks, want 200 with %d", code, strings.Count(body, `data-testid="look"`), looks)
	}
	code, body = op.do("GET", "/operator/looks.jsonl", "", "")
	lines := strings.Split(strings.TrimSpace(body), "\n")
	if code != http.StatusOK || len(lines) != looks || !strings.Contains(lines[0], `"what":"tree"`) || !strings.Contains(lines[0], `"operator_email":"op@example.com"`) {
		t.Errorf("GET /operator/looks.jsonl = %d, %d lines, first %q", code, len(lines), lines[0])
	}
}
