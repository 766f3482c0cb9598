package transport

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"github.com/sweatpants-go/sweatpants/internal/tree"
)

// recordToolCalls records tool calls in conversation conv, one after the
// other under a message, as the permission policy records them.
func (a *testApp) recordToolCalls(t *testing.T, conv string, recs ...tree.ToolRecord) {
	t.Helper()
	ctx := context.Background()
	parent, err := a.db.Append(ctx, tree.Node{Conversation: conv, Kind: tree.UserMessage, Payload: tree.MustEncode(tree.Message{Text: "book"})}, tree.AppendOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recs {
		if parent, err = a.db.Append(ctx, tree.Node{Conversation: conv, Parent: parent.ID, Kind: tree.ToolCall, Agent: r.Agent, Payload: tree.MustEncode(r)}, tree.AppendOptions{}); err != nil {
			t.Fatal(err)
		}
	}
}

// toolRows loads the audit page at path and returns its rows: tool,
// decision and outcome of each, newest first.
func (b *browser) toolRows(path string) []string {
	b.t.Helper()
	code, body := b.do(http.MethodGet, path, "", "")
	if code != http.StatusOK {
		b.t.Fatalf("GET %s = %d %.300s", path, code, body)
	}
	doc, err := html.Parse(strings.NewReader(body))
	if err != nil {
		b.t.Fatal(err)
	}
	var rows []string
	for n := range doc.Descendants() {
		if n.Type == html.ElementNode && attrOf(n, "data-testid") == "tool-call" {
			rows = append(rows, attrOf(n, "data-conversation")+" "+attrOf(n, "data-tool")+" "+attrOf(n, "data-decision")+" "+attrOf(n, "data-outcome"))
		}
	}
	return rows
}

func attrOf(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}

// The audit page lists the session's tool calls across its conversations,
// newest first, and narrows them by tool, decision and outcome; the export
// is the same calls as JSON lines. Another session sees none of them.
func TestTheAuditOfToolCallsIsTheSessions(t *testing.T) {
	a := newTestApp(t)
	alice, bob := a.browser(t), a.browser(t)
	trip, shop := alice.newConversation("concierge"), alice.newConversation("concierge")
	in := json.RawMessage(`{"seat":"3A"}`)
	a.recordToolCalls(t, trip,
		tree.ToolRecord{Agent: "travel", Tool: "search", Input: in, Output: in, Decision: "allow", DecidedBy: "default", Outcome: "ok", Started: 1764150000000, Duration: 1200},
		tree.ToolRecord{Agent: "travel", Tool: "book", Input: in, Error: "denied: too dear", Decision: "ask", DecidedBy: "user", Approval: "1-2", Outcome: "denied"})
	a.recordToolCalls(t, shop,
		tree.ToolRecord{Agent: "shop", Tool: "pay", Input: json.RawMessage("null"), Digest: "sha256:ab12", Decision: "allow", DecidedBy: "rule", Rule: "allow shop/pay (policy:2)", Outcome: "ok", Duration: 30})

	all := []string{shop + " pay allow ok", trip + " book ask denied", trip + " search allow ok"}
	for _, c := range []struct {
		path string
		want []string
	}{
		{"/tools", all},
		{"/tools?tool=book", all[1:2]},
		{"/tools?decision=allow", []string{all[0], all[2]}},
		{"/tools?outcome=denied&decision=ask", all[1:2]},
		{"/tools?tool=nothing", nil},
	} {
		if got := alice.toolRows(c.path); strings.Join(got, "|") != strings.Join(c.want, "|") {
			t.Errorf("GET %s lists %q, want %q", c.path, got, c.want)
		}
	}
	if got := bob.toolRows("/tools"); len(got) != 0 {
		t.Errorf("another session's audit lists %q", got)
	}
	for _, path := range []string{"/tools?decision=maybe", "/tools.jsonl?outcome=fine"} {
		if code, _ := alice.do(http.MethodGet, path, "", ""); code != http.StatusBadRequest {
			t.Errorf("GET %s = %d, want 400", path, code)
		}
	}

	code, body := alice.do(http.MethodGet, "/tools.jsonl?tool=pay", "", "")
	if code != http.StatusOK {
		t.Fatalf("GET /tools.jsonl = %d %s", code, body)
	}
	want := `{"time":"…","conversation":"` + shop + `","node":…,"agent":"shop","tool":"pay","digest":"sha256:ab12","decision":"allow","decided_by":"rule","rule":"allow shop/pay (policy:2)","duration_us":30,"outcome":"ok"}`
	if got := masked(body); got != want+"\n" {
		t.Errorf("export:\n%s\nwant\n%s", got, want)
	}
	_, body = alice.do(http.MethodGet, "/tools.jsonl", "", "")
	lines := strings.Split(strings.TrimSpace(body), "\n")
	if len(lines) != 3 || !strings.Contains(lines[2], `"args":{"seat":"3A"}`) || !strings.Contains(lines[2], `"time":"2025-11-26T09:40:00Z"`) || !strings.Contains(lines[1], `"approval":"1-2"`) {
		t.Errorf("the whole export, newest first:\n%s", body)
	}
	if _, body := bob.do(http.MethodGet, "/tools.jsonl", "", ""); body != "" {
		t.Errorf("another session exports %q", body)
	}
}

// masked is a line of the export with its time and node written as "…".
func masked(line string) string {
	var m map[string]json.RawMessage
	if json.Unmarshal([]byte(line), &m) != nil {
		return line
	}
	line = strings.Replace(line, string(m["time"]), `"…"`, 1)
	return strings.Replace(line, `"node":`+string(m["node"]), `"node":…`, 1)
}
