package chat_test

import (
	"testing"

	"github.com/sweatpants-go/sweatpants/internal/inbound"
	"github.com/sweatpants-go/sweatpants/internal/offline"
	"github.com/sweatpants-go/sweatpants/internal/pageview"
	"github.com/sweatpants-go/sweatpants/internal/tree"
)

// The title is the first message of the branch shown: an edit of that
// message retitles the conversation, a switch back restores the title; a
// retry is logged as a retry, not an edit.
func TestTheTitleFollowsTheFirstMessageShown(t *testing.T) {
	svc, db := newService(t, offline.New())
	conv, _ := svc.Create(t.Context(), "s", "survey")
	title := func() string {
		t.Helper()
		v, err := svc.View(t.Context(), "s", conv.ID)
		if err != nil {
			t.Fatal(err)
		}
		c, err := db.Conversation(t.Context(), "s", conv.ID)
		if err != nil {
			t.Fatal(err)
		}
		if c.Title != v.Conversation.Title {
			t.Errorf("the page says %q, the record %q", v.Conversation.Title, c.Title)
		}
		return v.Conversation.Title
	}
	if err := svc.Send(t.Context(), "s", conv.ID, "2"); err != nil {
		t.Fatal(err)
	}
	v := waitView(t, svc, "s", conv.ID, "the question", func(v pageview.View) bool { return pendingElicit(v) != nil })
	first := v.Items[0].ID
	if got := title(); got != "2" {
		t.Fatalf("title = %q", got)
	}
	if err := svc.Edit(t.Context(), "s", conv.ID, first, inbound.Message{Text: "3"}); err != nil {
		t.Fatal(err)
	}
	if got := title(); got != "3" {
		t.Errorf("after the edit, title = %q, want the new version's", got)
	}
	if err := svc.Switch(t.Context(), "s", conv.ID, first); err != nil {
		t.Fatal(err)
	}
	if got := title(); got != "2" {
		t.Errorf("after switching back, title = %q", got)
	}
	if err := svc.Stop(t.Context(), "s", conv.ID); err != nil {
		t.Fatal(err)
	}
	v = waitView(t, svc, "s", conv.ID, "the stop", func(v pageview.View) bool { return lastItem(v).Kind == tree.Stopped })
	if err := svc.Retry(t.Context(), "s", conv.ID, lastItem(v).ID); err != nil {
		t.Fatal(err)
	}
	log, _ := db.Reflog(t.Context(), conv.ID)
	if log[0].Action != tree.ActRetry {
		t.Errorf("the retry is logged as %q", log[0].Action)
	}
}
