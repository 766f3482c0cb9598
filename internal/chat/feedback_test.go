package chat_test

import (
	"context"
	"strings"
	"testing"

	"github.com/sweatpants-go/sweatpants/agents"
	"github.com/sweatpants-go/sweatpants/internal/apperr"
	"github.com/sweatpants-go/sweatpants/internal/chat"
	"github.com/sweatpants-go/sweatpants/internal/chat/chattest"
	"github.com/sweatpants-go/sweatpants/internal/inbound"
	"github.com/sweatpants-go/sweatpants/internal/offline"
	"github.com/sweatpants-go/sweatpants/internal/pageview"
	"github.com/sweatpants-go/sweatpants/internal/registry"
	"github.com/sweatpants-go/sweatpants/internal/tree"
)

// echoed starts a conversation with an assistant that says back what it is
// told, sends text and returns the conversation and the view with its reply.
func echoed(t *testing.T, text string) (*chat.Service, string, pageview.View) {
	t.Helper()
	echo := agents.Assistant{Name: "echo", Turn: func(ctx context.Context, msg string) (string, error) { return "you said " + msg, nil }}
	svc, _ := chattest.New(t, chat.Config{Assistants: registry.New(echo), Model: offline.New()})
	conv, err := svc.Create(t.Context(), "me", "")
	if err != nil {
		t.Fatal(err)
	}
	if err := svc.Send(t.Context(), "me", conv.ID, text); err != nil {
		t.Fatal(err)
	}
	v := waitView(t, svc, "me", conv.ID, "the reply", func(v pageview.View) bool {
		return !v.Status.Running && lastItem(v).Kind == tree.AssistantMessage
	})
	return svc, conv.ID, v
}

// feedbackShown is the feedback the page shows on the reply that says text.
func feedbackShown(t *testing.T, v pageview.View, text string) *tree.FeedbackRecord {
	t.Helper()
	for _, it := range v.Items {
		if it.Kind == tree.AssistantMessage && it.Text == text {
			if !it.Rated {
				t.Errorf("reply %q is not offered feedback", text)
			}
			return it.Feedback
		}
	}
	t.Fatalf("no reply %q on the page: %+v", text, v.Items)
	return nil
}

// Feedback on a reply is recorded beside it, HEAD left where it is; given
// again, the newest counts, and none clears it.
func TestFeedbackIsRecordedAndTheNewestCounts(t *testing.T) {
	svc, conv, v := echoed(t, "hi")
	reply := lastItem(v)
	head := v.Conversation.Head

	n, err := svc.GiveFeedback(t.Context(), "me", conv, reply.ID, inbound.Feedback{Rating: tree.ThumbsDown, Comment: "  too short  "})
	if err != nil {
		t.Fatal(err)
	}
	if n.Kind != tree.Feedback || n.Parent != reply.ID {
		t.Fatalf("recorded %+v, want a feedback node under reply %d", n, reply.ID)
	}
	v, _ = svc.View(t.Context(), "me", conv)
	if v.Conversation.Head != head {
		t.Errorf("HEAD moved to %d, want it left at %d", v.Conversation.Head, head)
	}
	if got := feedbackShown(t, v, "you said hi"); got == nil || *got != (tree.FeedbackRecord{Rating: tree.ThumbsDown, Comment: "too short"}) {
		t.Fatalf("shown %+v, want thumbs down with the comment trimmed", got)
	}

	if _, err := svc.GiveFeedback(t.Context(), "me", conv, reply.ID, inbound.Feedback{Rating: tree.ThumbsUp}); err != nil {
		t.Fatal(err)
	}
	v, _ = svc.View(t.Context(), "me", conv)
	if got := feedbackShown(t, v, "you said hi"); got == nil || got.Rating != tree.ThumbsUp || got.Comment != "" {
		t.Fatalf("after a change of mind shown %+v, want thumbs up alone", got)
	}
	given, err := svc.FeedbackOf(t.Context(), "me", conv)
	if err != nil || len(given) != 1 || given[0].Reply != reply.ID || given[0].Rating != tree.ThumbsUp || !given[0].Current {
		t.Fatalf("FeedbackOf = %+v, %v; want thumbs up on reply %d, current", given, err, reply.ID)
	}

	if _, err := svc.GiveFeedback(t.Context(), "me", conv, reply.ID, inbound.Feedback{Rating: tree.NoRating}); err != nil {
		t.Fatal(err)
	}
	v, _ = svc.View(t.Context(), "me", conv)
	if got := feedbackShown(t, v, "you said hi"); got != nil {
		t.Fatalf("after clearing shown %+v, want none", got)
	}
	if given, _ := svc.FeedbackOf(t.Context(), "me", conv); len(given) != 0 {
		t.Errorf("FeedbackOf after clearing = %+v, want none", given)
	}

	// The next message follows the reply, not the feedback.
	if err := svc.Send(t.Context(), "me", conv, "again"); err != nil {
		t.Fatal(err)
	}
	v = waitView(t, svc, "me", conv, "the second reply", func(v pageview.View) bool { return !v.Status.Running && lastItem(v).Text == "you said again" })
	if len(v.Items) != 4 {
		t.Errorf("the page shows %d items, want 4 (two messages, two replies)", len(v.Items))
	}
}

// Feedback follows its reply's branch: after an edit the new reply has
// none, and switching back to the first version shows it again.
func TestFeedbackFollowsAnEditAndASwitch(t *testing.T) {
	svc, conv, v := echoed(t, "first")
	msg, reply := v.Items[0].ID, lastItem(v).ID
	if _, err := svc.GiveFeedback(t.Context(), "me", conv, reply, inbound.Feedback{Rating: tree.ThumbsUp, Comment: "good"}); err != nil {
		t.Fatal(err)
	}
	if err := svc.Edit(t.Context(), "me", conv, msg, inbound.Message{Text: "second"}); err != nil {
		t.Fatal(err)
	}
	v = waitView(t, svc, "me", conv, "the edited reply", func(v pageview.View) bool { return !v.Status.Running && lastItem(v).Text == "you said second" })
	if got := feedbackShown(t, v, "you said second"); got != nil {
		t.Errorf("the edited branch's reply shows %+v, want no feedback", got)
	}
	given, _ := svc.FeedbackOf(t.Context(), "me", conv)
	if len(given) != 1 || given[0].Reply != reply || given[0].Current {
		t.Errorf("FeedbackOf after the edit = %+v, want the first reply's, not on the current branch", given)
	}

	if err := svc.Switch(t.Context(), "me", conv, msg); err != nil {
		t.Fatal(err)
	}
	v, _ = svc.View(t.Context(), "me", conv)
	if v.Conversation.Head != reply {
		t.Errorf("switched back, HEAD is %d, want the first reply %d (not its feedback)", v.Conversation.Head, reply)
	}
	if got := feedbackShown(t, v, "you said first"); got == nil || got.Rating != tree.ThumbsUp || got.Comment != "good" {
		t.Errorf("switched back, the first reply shows %+v, want its thumbs up", got)
	}
}

// Bad feedback is refused with a clear error, and nothing is recorded.
func TestRefusedFeedbackRecordsNothing(t *testing.T) {
	svc, conv, v := echoed(t, "hi")
	msg, reply := v.Items[0].ID, lastItem(v).ID
	other, _ := svc.Create(t.Context(), "someone else", "")
	for _, tc := range []struct {
		name  string
		conv  string
		reply int64
		f     inbound.Feedback
		code  apperr.Code
		says  string
	}{
		{"an unknown rating", conv, reply, inbound.Feedback{Rating: "meh"}, apperr.Invalid, "up, down or none"},
		{"no rating", conv, reply, inbound.Feedback{}, apperr.Invalid, "up, down or none"},
		{"an overlong comment", conv, reply, inbound.Feedback{Rating: tree.ThumbsDown, Comment: strings.Repeat("é", inbound.MaxFeedbackComment+1)}, apperr.Invalid, "the limit is 2000"},
		{"an unknown reply", conv, 999999, inbound.Feedback{Rating: tree.ThumbsUp}, apperr.NotFound, "no reply 999999"},
		{"a message, not a reply", conv, msg, inbound.Feedback{Rating: tree.ThumbsUp}, apperr.NotFound, "no reply"},
		{"another session's conversation", other.ID, reply, inbound.Feedback{Rating: tree.ThumbsUp}, apperr.NotFound, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := svc.GiveFeedback(t.Context(), "me", tc.conv, tc.reply, tc.f)
			if got := apperr.CodeOf(err); got != tc.code {
				t.Fatalf("error %v (%s), want %s", err, got, tc.code)
			}
			if !strings.Contains(apperr.MessageOf(err), tc.says) {
				t.Errorf("message %q, want it to say %q", apperr.MessageOf(err), tc.says)
			}
		})
	}
	if given, _ := svc.FeedbackOf(t.Context(), "me", conv); len(given) != 0 {
		t.Errorf("feedback recorded after refusals: %+v", given)
	}
	if v, _ := svc.View(t.Context(), "me", conv); feedbackShown(t, v, "you said hi") != nil {
		t.Error("the page shows feedback after refusals")
	}
}

// A side question's reply is given feedback like any reply, shown on its
// side question's item.
func TestFeedbackOnASideReply(t *testing.T) {
	svc, conv, v := echoed(t, "hi")
	if err := svc.AskAside(t.Context(), "me", conv, lastItem(v).ID, "why?"); err != nil {
		t.Fatal(err)
	}
	v = waitView(t, svc, "me", conv, "the side reply", func(v pageview.View) bool {
		it := lastItem(v)
		return it.Kind == tree.SideQuestion && it.Replied
	})
	side := lastItem(v)
	if !side.Rated || side.ReplyNode == 0 {
		t.Fatalf("side item %+v, want its reply offered feedback", side)
	}
	if _, err := svc.GiveFeedback(t.Context(), "me", conv, side.ReplyNode, inbound.Feedback{Rating: tree.ThumbsUp, Comment: "clear"}); err != nil {
		t.Fatal(err)
	}
	v, _ = svc.View(t.Context(), "me", conv)
	if got := lastItem(v).Feedback; got == nil || *got != (tree.FeedbackRecord{Rating: tree.ThumbsUp, Comment: "clear"}) {
		t.Errorf("the side item shows %+v, want thumbs up with the comment", got)
	}
	if flow := v.Items[1]; flow.Kind != tree.AssistantMessage || flow.Feedback != nil {
		t.Errorf("the flow's reply is %+v, want it without the side reply's feedback", flow)
	}

	// A follow-up goes on from the side reply, not from its feedback.
	if err := svc.AskAside(t.Context(), "me", conv, lastItem(v).Anchor, "and then?"); err != nil {
		t.Fatal(err)
	}
	v = waitView(t, svc, "me", conv, "the follow-up's reply", func(v pageview.View) bool {
		it := lastItem(v)
		return it.Kind == tree.SideQuestion && it.Text == "and then?" && it.Replied
	})
	if got := v.Items[len(v.Items)-2].Feedback; got == nil || got.Rating != tree.ThumbsUp {
		t.Errorf("after a follow-up the first side reply shows %+v, want its thumbs up", got)
	}
}
