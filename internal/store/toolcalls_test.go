package store

import (
	"context"
	"encoding/json"
	"slices"
	"testing"

	"github.com/sweatpants-go/sweatpants/internal/tree"
)

// A session's audit trail is its own conversations' tool calls, newest
// first, narrowed by tool, decision and outcome; a call recorded before
// the policy counts as ok or error by whether it failed.
func TestToolCallsAreTheSessionsOwnNewestFirst(t *testing.T) {
	contract(t, testToolCallsAreTheSessionsOwnNewestFirst)
}

func testToolCallsAreTheSessionsOwnNewestFirst(t *testing.T, target string) {
	db := openTarget(t, target, Options{})
	ctx := context.Background()
	a, ma := newConversationSaying(t, db, "alice", "a1", "book")
	b, mb := newConversationSaying(t, db, "alice", "a2", "search")
	o, mo := newConversationSaying(t, db, "bob", "b1", "book")
	call := func(c tree.Conversation, parent tree.Node, r tree.ToolRecord) tree.Node {
		t.Helper()
		n, err := db.Append(ctx, tree.Node{Conversation: c.ID, Parent: parent.ID, Kind: tree.ToolCall, Agent: r.Agent, Payload: tree.MustEncode(r)}, tree.AppendOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	in := json.RawMessage(`{}`)
	booked := call(a, ma, tree.ToolRecord{Agent: "travel", Tool: "book", Input: in, Decision: "ask", DecidedBy: "user", Outcome: "ok"})
	search := call(b, mb, tree.ToolRecord{Agent: "travel", Tool: "search", Input: in, Decision: "allow", DecidedBy: "default", Outcome: "ok"})
	denied := call(a, booked, tree.ToolRecord{Agent: "travel", Tool: "book", Input: in, Decision: "ask", DecidedBy: "user", Outcome: "denied"})
	old := call(b, search, tree.ToolRecord{Agent: "travel", Tool: "search", Input: in, Error: "no flights"})
	call(o, mo, tree.ToolRecord{Agent: "travel", Tool: "book", Input: in, Decision: "allow", Outcome: "ok"}) // bob's

	ids := func(ns []tree.Node) []int64 {
		var out []int64
		for _, n := range ns {
			out = append(out, n.ID)
		}
		return out
	}
	for _, c := range []struct {
		name                             string
		session, tool, decision, outcome string
		limit                            int
		want                             []tree.Node
	}{
		{"all of alice's", "alice", "", "", "", 0, []tree.Node{old, denied, search, booked}},
		{"the newest two", "alice", "", "", "", 2, []tree.Node{old, denied}},
		{"one tool", "alice", "book", "", "", 0, []tree.Node{denied, booked}},
		{"asked", "alice", "", "ask", "", 0, []tree.Node{denied, booked}},
		{"denied", "alice", "", "", "denied", 0, []tree.Node{denied}},
		{"failed before the policy", "alice", "", "", "error", 0, []tree.Node{old}},
		{"ok", "alice", "", "", "ok", 0, []tree.Node{search, booked}},
		{"a stranger", "eve", "", "", "", 0, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := db.ToolCalls(ctx, c.session, c.tool, c.decision, c.outcome, c.limit)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(ids(got), ids(c.want)) {
				t.Errorf("got nodes %v, want %v", ids(got), ids(c.want))
			}
			for _, n := range got {
				if n.Kind != tree.ToolCall || n.Conversation == "" || n.At.IsZero() || len(n.Payload) == 0 {
					t.Errorf("node %+v is not read whole", n)
				}
			}
		})
	}
}
