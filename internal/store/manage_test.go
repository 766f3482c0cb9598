package store

import (
	"context"
	"encoding/json"
	"slices"
	"testing"

	"github.com/sweatpants-go/sweatpants/internal/apperr"
	"github.com/sweatpants-go/sweatpants/internal/tree"
)

func TestRenameConversation(t *testing.T) { contract(t, testRenameConversation) }

func testRenameConversation(t *testing.T, target string) {
	db := openTarget(t, target, Options{})
	ctx := context.Background()
	c, _ := newConversationSaying(t, db, "s1", "c1", "plan a trip")
	if err := db.SetTitle(ctx, c.ID, "plan a trip"); err != nil {
		t.Fatal(err)
	}

	if err := db.RenameConversation(ctx, "s2", c.ID, "Mine now"); apperr.CodeOf(err) != apperr.NotFound {
		t.Errorf("another session renames: err = %v, want NotFound", err)
	}
	got, err := db.Conversation(ctx, "s1", c.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Title != "plan a trip" || got.Named {
		t.Errorf("after another session's rename: title %q named %v, want the first message's, not named", got.Title, got.Named)
	}

	if err := db.RenameConversation(ctx, "s1", c.ID, "Lisbon in May"); err != nil {
		t.Fatal(err)
	}
	got, err = db.Conversation(ctx, "s1", c.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Title != "Lisbon in May" || !got.Named {
		t.Errorf("after rename: title %q named %v, want %q, named", got.Title, got.Named, "Lisbon in May")
	}
}

func TestDeleteConversationTakesItsTreeAndReflog(t *testing.T) {
	contract(t, testDeleteConversationTakesItsTreeAndReflog)
}

func testDeleteConversationTakesItsTreeAndReflog(t *testing.T, target string) {
	db := openTarget(t, target, Options{})
	ctx := context.Background()
	c, first := newConversationSaying(t, db, "s1", "c1", "hello")
	reply := appendMessage(t, db, c.ID, first.ID, tree.AssistantMessage, "hi", false)
	// A second branch, with a reflog entry.
	appendMessage(t, db, c.ID, 0, tree.UserMessage, "hello again", true)
	if _, err := db.MoveHead(ctx, c.ID, reply.ID, tree.Move{Action: tree.ActSwitch}); err != nil {
		t.Fatal(err)
	}
	keep, _ := newConversationSaying(t, db, "s1", "c2", "keep me")
	before := rowCounts(t, db, keep.ID)

	if err := db.DeleteConversation(ctx, "s2", c.ID); apperr.CodeOf(err) != apperr.NotFound {
		t.Errorf("another session deletes: err = %v, want NotFound", err)
	}
	if got := rowCounts(t, db, c.ID); got != [3]int{1, 3, 2} {
		t.Errorf("after another session's delete: conversation, nodes, reflog rows = %v, want [1 3 2]", got)
	}

	if err := db.DeleteConversation(ctx, "s1", c.ID); err != nil {
		t.Fatal(err)
	}
	if got := rowCounts(t, db, c.ID); got != [3]int{} {
		t.Errorf("after delete: conversation, nodes, reflog rows = %v, want none", got)
	}
	if _, err := db.Conversation(ctx, "s1", c.ID); apperr.CodeOf(err) != apperr.NotFound {
		t.Errorf("deleted conversation: err = %v, want NotFound", err)
	}
	if err := db.DeleteConversation(ctx, "s1", c.ID); apperr.CodeOf(err) != apperr.NotFound {
		t.Errorf("delete again: err = %v, want NotFound", err)
	}
	if got := rowCounts(t, db, keep.ID); got != before {
		t.Errorf("the other conversation's rows = %v, want %v as before", got, before)
	}
}

func TestSearchConversations(t *testing.T) { contract(t, testSearchConversations) }

func testSearchConversations(t *testing.T, target string) {
	db := openTarget(t, target, Options{})
	ctx := context.Background()
	trip, first := newConversationSaying(t, db, "s1", "trip", "Book a flight to Lisbon")
	appendMessage(t, db, trip.ID, first.ID, tree.AssistantMessage, "Which day? I see a TAP flight at 9:40.", false)
	weather, _ := newConversationSaying(t, db, "s1", "weather", "What's the weather here?")
	if err := db.RenameConversation(ctx, "s1", weather.ID, "Sunny 100% days"); err != nil {
		t.Fatal(err)
	}
	newConversationSaying(t, db, "s2", "theirs", "Book a flight to Lisbon too")
	newConversationSaying(t, db, "s1", "json", `quote " and backslash \ in text`)
	// PostgreSQL's jsonb refuses \u0000: a message holding a NUL must not
	// stop the session's search, nor hide itself from it.
	newConversationSaying(t, db, "s1", "nul", "a NUL\x00 here")
	newConversationSaying(t, db, "s1", "esc", `a literal \u0000 here`)

	for _, tc := range []struct {
		query string
		want  []string
	}{
		{"lisbon", []string{"trip"}},            // the user's message, any case; not the other session's
		{"TAP flight", []string{"trip"}},        // the agent's reply
		{"100%", []string{"weather"}},           // the title, with a wildcard taken literally
		{"%", []string{"weather"}},              // only where there is a % sign
		{"_", nil},                              // no underscore anywhere
		{`" and backslash \`, []string{"json"}}, // what JSON escapes in the record
		{"NUL", []string{"nul"}},                // a message with a NUL in it
		{`literal \u0000`, []string{"esc"}},     // the six characters that look like its escape
		{"nowhere", nil},
	} {
		t.Run(tc.query, func(t *testing.T) {
			found, err := db.SearchConversations(ctx, "s1", tc.query)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, c := range found {
				got = append(got, c.ID)
			}
			slices.Sort(got)
			if !slices.Equal(got, tc.want) {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}
}

// appendMessage records a message of kind under parent, on a new branch
// (fork, logged as an edit) or at HEAD.
func appendMessage(t *testing.T, db *DB, conv string, parent int64, kind tree.Kind, text string, fork bool) tree.Node {
	t.Helper()
	payload, err := json.Marshal(tree.Message{Text: text})
	if err != nil {
		t.Fatal(err)
	}
	opts := tree.AppendOptions{}
	if fork {
		opts = tree.AppendOptions{Fork: true, Log: &tree.Move{Action: tree.ActEdit, Detail: text}}
	}
	n, err := db.Append(context.Background(), tree.Node{Conversation: conv, Parent: parent, Kind: kind, Payload: payload}, opts)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// rowCounts counts the rows of conversation id in conversations, nodes and
// reflog.
func rowCounts(t *testing.T, db *DB, id string) [3]int {
	t.Helper()
	var out [3]int
	for i, q := range []string{
		`SELECT COUNT(*) FROM conversations WHERE id = ?`,
		`SELECT COUNT(*) FROM nodes WHERE conversation_id = ?`,
		`SELECT COUNT(*) FROM reflog WHERE conversation_id = ?`,
	} {
		if err := db.read.QueryRow(q, id).Scan(&out[i]); err != nil {
			t.Fatal(err)
		}
	}
	return out
}
