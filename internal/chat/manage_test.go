package chat_test

import (
	"strings"
	"testing"

	"github.com/sweatpants-go/sweatpants/internal/apperr"
	"github.com/sweatpants-go/sweatpants/internal/inbound"
	"github.com/sweatpants-go/sweatpants/internal/offline"
	"github.com/sweatpants-go/sweatpants/internal/pageview"
	"github.com/sweatpants-go/sweatpants/llm/llmtest"
	"github.com/sweatpants-go/sweatpants/llm/openai"
)

// A conversation the user named keeps its name: the first message, which
// titles it until then, no longer does. A name refused changes nothing, and
// another session cannot rename it.
func TestRenameKeepsTheUsersName(t *testing.T) {
	svc, db := newService(t, offline.New())
	ctx := t.Context()
	conv, err := svc.Create(ctx, "s1", "assistant")
	if err != nil {
		t.Fatal(err)
	}
	if err := svc.Send(ctx, "s1", conv.ID, "What is the weather in Lisbon?"); err != nil {
		t.Fatal(err)
	}
	v := waitView(t, svc, "s1", conv.ID, "the reply", func(v pageview.View) bool { return !v.Status.Running })
	first := v.Items[0].ID

	for _, bad := range []string{" \n ", strings.Repeat("é", inbound.MaxTitleLen+1)} {
		if err := svc.Rename(ctx, "s1", conv.ID, bad); apperr.CodeOf(err) != apperr.Invalid {
			t.Errorf("rename to %.10q…: err = %v, want Invalid", bad, err)
		}
	}
	if err := svc.Rename(ctx, "s2", conv.ID, "Theirs"); apperr.CodeOf(err) != apperr.NotFound {
		t.Errorf("another session renames: err = %v, want NotFound", err)
	}
	if got, _ := db.Conversation(ctx, "s1", conv.ID); got.Title != "What is the weather in Lisbon?" {
		t.Errorf("after refused renames, the title is %q", got.Title)
	}

	if err := svc.Rename(ctx, "s1", conv.ID, " Lisbon\tin May "); err != nil {
		t.Fatal(err)
	}
	if err := svc.Edit(ctx, "s1", conv.ID, first, inbound.Message{Text: "What is the weather in Paris?"}); err != nil {
		t.Fatal(err)
	}
	v = waitView(t, svc, "s1", conv.ID, "the edited turn's reply", func(v pageview.View) bool {
		return !v.Status.Running && strings.Contains(lastItem(v).Text, "Paris")
	})
	if v.Conversation.Title != "Lisbon in May" {
		t.Errorf("after an edit of the first message, the page's title is %q, want the name given", v.Conversation.Title)
	}
	if got, _ := db.Conversation(ctx, "s1", conv.ID); got.Title != "Lisbon in May" || !got.Named {
		t.Errorf("recorded: title %q, named %v; want the name given", got.Title, got.Named)
	}
}

// Deleting a conversation whose turn is working ends the turn, which
// records nothing more: the conversation and all it recorded are gone.
func TestDeleteAConversationWhileItsTurnWorks(t *testing.T) {
	model := llmtest.NewServer(t, llmtest.Reply{Chunks: []string{"Once upon a time"}, Hold: true})
	svc, db := newService(t, openai.New(openai.Config{APIKey: "test", BaseURL: model.URL, Model: "test"}))
	ctx := t.Context()
	conv, err := svc.Create(ctx, "s1", "assistant")
	if err != nil {
		t.Fatal(err)
	}
	if err := svc.Send(ctx, "s1", conv.ID, "Tell me a long story"); err != nil {
		t.Fatal(err)
	}
	waitView(t, svc, "s1", conv.ID, "the reply streaming", func(v pageview.View) bool { return v.Status.Draft != "" })

	if err := svc.Delete(ctx, "s2", conv.ID); apperr.CodeOf(err) != apperr.NotFound {
		t.Errorf("another session deletes: err = %v, want NotFound", err)
	}
	if err := svc.Delete(ctx, "s1", conv.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.View(ctx, "s1", conv.ID); apperr.CodeOf(err) != apperr.NotFound {
		t.Errorf("view after delete: err = %v, want NotFound", err)
	}
	if err := svc.Send(ctx, "s1", conv.ID, "hello?"); apperr.CodeOf(err) != apperr.NotFound {
		t.Errorf("send after delete: err = %v, want NotFound", err)
	}
	svc.Close() // the turn has ended, and written what it was going to
	nodes, err := db.Nodes(ctx, conv.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(nodes) != 0 {
		t.Errorf("%d nodes left of the deleted conversation, want none", len(nodes))
	}
	if convs, _ := svc.Conversations(ctx, "s1"); len(convs) != 0 {
		t.Errorf("the session still lists %d conversations", len(convs))
	}
}

// Search finds a session's conversations by title and by what was said.
func TestSearchFindsByWhatWasSaid(t *testing.T) {
	svc, _ := newService(t, offline.New())
	ctx := t.Context()
	for _, text := range []string{"What is the weather in Lisbon?", "Hello"} {
		conv, err := svc.Create(ctx, "s1", "assistant")
		if err != nil {
			t.Fatal(err)
		}
		if err := svc.Send(ctx, "s1", conv.ID, text); err != nil {
			t.Fatal(err)
		}
		waitView(t, svc, "s1", conv.ID, "the reply", func(v pageview.View) bool { return !v.Status.Running })
	}
	for _, tc := range []struct {
		query string
		want  int
	}{{"", 2}, {"  lisbon ", 1}, {"celsius", 1}, {"nowhere", 0}} {
		got, err := svc.Search(ctx, "s1", tc.query)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != tc.want {
			t.Errorf("search %q: %d conversations, want %d", tc.query, len(got), tc.want)
		}
	}
	if _, err := svc.Search(ctx, "s1", strings.Repeat("x", inbound.MaxQueryLen+1)); apperr.CodeOf(err) != apperr.Invalid {
		t.Errorf("an overlong search: err = %v, want Invalid", err)
	}
}
