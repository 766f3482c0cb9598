package calls_test

import (
	"encoding/json"
	"slices"
	"testing"
	"time"

	"github.com/sweatpants-go/sweatpants/internal/apperr"
	"github.com/sweatpants-go/sweatpants/internal/calls"
	"github.com/sweatpants-go/sweatpants/internal/store"
	"github.com/sweatpants-go/sweatpants/internal/store/storetest"
	"github.com/sweatpants-go/sweatpants/internal/tree"
)

// recordCalls records, in conversation id of session, a message and the
// tool calls after it, one after the other.
func recordCalls(t *testing.T, db *store.DB, session, id string, recs ...tree.ToolRecord) []tree.Node {
	t.Helper()
	ctx := t.Context()
	if err := db.EnsureSession(ctx, session); err != nil {
		t.Fatal(err)
	}
	if _, err := db.CreateConversation(ctx, tree.Conversation{ID: id, Session: session, Agent: "travel", Title: "Trip " + id}); err != nil {
		t.Fatal(err)
	}
	parent, err := db.Append(ctx, tree.Node{Conversation: id, Kind: tree.UserMessage, Payload: tree.MustEncode(tree.Message{Text: "go"})}, tree.AppendOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var out []tree.Node
	for _, r := range recs {
		parent, err = db.Append(ctx, tree.Node{Conversation: id, Parent: parent.ID, Kind: tree.ToolCall, Agent: r.Agent, Payload: tree.MustEncode(r)}, tree.AppendOptions{})
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, parent)
	}
	return out
}

// The audit lists a session's tool calls across its conversations, newest
// first, each with its conversation, when it began and who decided it;
// another session's calls are not there, and a filter narrows them.
func TestTheAuditListsTheSessionsToolCalls(t *testing.T) {
	db := storetest.Open(t)
	audit := calls.New(db, nil)
	started := time.Date(2026, 11, 26, 9, 30, 0, 0, time.UTC)
	in := json.RawMessage(`{"seat":"3A"}`)
	first := recordCalls(t, db, "alice", "a1",
		tree.ToolRecord{Agent: "travel", Tool: "search", Input: in, Output: in, Decision: "allow", DecidedBy: "default", Outcome: "ok", Started: started.UnixMilli(), Duration: 1500},
		tree.ToolRecord{Agent: "travel", Tool: "book", Input: in, Error: "denied: too dear", Decision: "ask", DecidedBy: "user", Approval: "1-3", Outcome: "denied"})
	second := recordCalls(t, db, "alice", "a2",
		tree.ToolRecord{Agent: "travel", Tool: "book", Input: in, Error: "no seats"}) // before the policy
	recordCalls(t, db, "bob", "b1", tree.ToolRecord{Agent: "travel", Tool: "book", Input: in, Decision: "allow", Outcome: "ok"})

	l, err := audit.ToolCalls(t.Context(), "alice", calls.ToolFilter{}, 0)
	if err != nil {
		t.Fatal(err)
	}
	var got []int64
	for _, c := range l.Calls {
		got = append(got, c.Node)
	}
	if want := []int64{second[0].ID, first[1].ID, first[0].ID}; !slices.Equal(got, want) {
		t.Fatalf("calls %v, want alice's, newest first, %v", got, want)
	}
	search, denied, old := l.Calls[2], l.Calls[1], l.Calls[0]
	if search.Conversation.ID != "a1" || search.Conversation.Title != "Trip a1" || !search.At.Equal(started) || search.Record.Duration != 1500 || search.Outcome() != "ok" {
		t.Errorf("the search: %+v, want a1's, begun at %v", search, started)
	}
	if denied.Outcome() != "denied" || denied.Record.DecidedBy != "user" || denied.At.IsZero() {
		t.Errorf("the denied booking: %+v", denied)
	}
	if old.Outcome() != "error" || old.Record.Decision != "" {
		t.Errorf("the call before the policy: %+v, want an error with no decision", old)
	}
	if l.More {
		t.Error("More with every call listed")
	}

	if l, _ := audit.ToolCalls(t.Context(), "alice", calls.ToolFilter{}, 2); len(l.Calls) != 2 || !l.More {
		t.Errorf("at most 2: %d calls, more %v; want 2 and more", len(l.Calls), l.More)
	}
	if l, _ := audit.ToolCalls(t.Context(), "alice", calls.ToolFilter{Tool: "book", Outcome: "denied"}, 0); len(l.Calls) != 1 || l.Calls[0].Node != first[1].ID {
		t.Errorf("book, denied: %+v", l.Calls)
	}
	if l, _ := audit.ToolCalls(t.Context(), "eve", calls.ToolFilter{}, 0); len(l.Calls) != 0 {
		t.Errorf("a session with no conversations sees %+v", l.Calls)
	}
	for _, f := range []calls.ToolFilter{{Decision: "maybe"}, {Outcome: "fine"}} {
		if _, err := audit.ToolCalls(t.Context(), "alice", f, 0); apperr.CodeOf(err) != apperr.Invalid {
			t.Errorf("filter %+v: %v, want Invalid", f, err)
		}
	}
}
