package share_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sweatpants-go/sweatpants/elicit"
	"github.com/sweatpants-go/sweatpants/internal/apperr"
	"github.com/sweatpants-go/sweatpants/internal/share"
	"github.com/sweatpants-go/sweatpants/internal/store"
	"github.com/sweatpants-go/sweatpants/internal/tree"
)

// record appends a node of kind with payload to conversation c, at HEAD.
func record(t *testing.T, db *store.DB, c string, kind tree.Kind, ref string, payload any) tree.Node {
	t.Helper()
	b, err := json.Marshal(payload)
	if err != nil {
		t.Fatal(err)
	}
	conv, err := db.Conversation(context.Background(), "me", c)
	if err != nil {
		t.Fatal(err)
	}
	n, err := db.Append(context.Background(), tree.Node{Conversation: c, Parent: conv.Head, Kind: kind, Ref: ref, Payload: b}, tree.AppendOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// A link shows its branch as it stood: the messages, the answers, the tool
// calls with the audit's redaction, and nothing recorded after its node.
func TestALinkShowsTheBranchAsItStood(t *testing.T) {
	ctx := context.Background()
	now := time.UnixMilli(1_700_000_000_000)
	db, err := store.Open(ctx, filepath.Join(t.TempDir(), "data", "test.db"), store.Options{Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	for _, s := range []string{"me", "you"} {
		if err := db.EnsureSession(ctx, s); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := db.CreateConversation(ctx, tree.Conversation{ID: "c1", Session: "me", Agent: "assistant", Title: "Trip"}); err != nil {
		t.Fatal(err)
	}
	record(t, db, "c1", tree.UserMessage, "", tree.Message{Text: "Plan a trip"})
	record(t, db, "c1", tree.ElicitRequest, "q1", elicit.Request{ID: "q1", Kind: "confirm", Message: "To Oslo?"})
	record(t, db, "c1", tree.ElicitResponse, "q1", elicit.Response{Action: elicit.Accept, Content: json.RawMessage(`{"destination":"Oslo"}`)})
	record(t, db, "c1", tree.ToolCall, "", tree.ToolRecord{Tool: "search", Input: json.RawMessage(`{"q":"hotels"}`), Output: json.RawMessage(`"3 found"`)})
	record(t, db, "c1", tree.ToolCall, "", tree.ToolRecord{Tool: "pay", Digest: "sha256:abc", Outcome: "ok"})
	reply := record(t, db, "c1", tree.AssistantMessage, "", tree.Message{Text: "Booked."})
	svc := share.New(db)

	l, token, err := svc.Create(ctx, "me", "c1", 0, share.DefaultExpiry)
	if err != nil {
		t.Fatal(err)
	}
	if l.Node != reply.ID || len(token) < 22 {
		t.Fatalf("shared %+v with token %q; want HEAD %d and a token of 128 bits or more", l, token, reply.ID)
	}
	record(t, db, "c1", tree.UserMessage, "", tree.Message{Text: "secret afterthought"})

	got, err := svc.Open(ctx, token)
	if err != nil {
		t.Fatal(err)
	}
	var says []string
	for _, it := range got.Items {
		s := it.Kind + ": " + it.Text
		if it.Tool != nil {
			s += it.Tool.Name + " " + string(it.Tool.Args) + it.Tool.Digest + " → " + string(it.Tool.Output)
		}
		says = append(says, s)
	}
	want := []string{
		"message: Plan a trip",
		"question: To Oslo?",
		"answer: accept: destination Oslo",
		`tool: search {"q":"hotels"} → "3 found"`,
		"tool: pay sha256:abc → ",
		"reply: Booked.",
	}
	if strings.Join(says, "\n") != strings.Join(want, "\n") || got.Title != "Trip" {
		t.Errorf("shared %q:\n%s\nwant:\n%s", got.Title, strings.Join(says, "\n"), strings.Join(want, "\n"))
	}

	t.Run("refusals", func(t *testing.T) {
		for _, c := range []struct {
			name, session string
			node          int64
			ttl           time.Duration
			code          apperr.Code
		}{
			{"another session", "you", 0, share.DefaultExpiry, apperr.NotFound},
			{"a node it does not have", "me", 999, share.DefaultExpiry, apperr.Invalid},
			{"too short", "me", 0, time.Minute, apperr.Invalid},
			{"too long", "me", 0, 31 * 24 * time.Hour, apperr.Invalid},
		} {
			if _, _, err := svc.Create(ctx, c.session, "c1", c.node, c.ttl); apperr.CodeOf(err) != c.code {
				t.Errorf("%s: %v, want %s", c.name, err, c.code)
			}
		}
		if _, ls, _ := svc.List(ctx, "me", "c1"); len(ls) != 1 {
			t.Errorf("after the refusals the conversation has %d links, want 1", len(ls))
		}
		if err := svc.Revoke(ctx, "you", "c1", l.ID); apperr.CodeOf(err) != apperr.NotFound {
			t.Errorf("revoked by another session: %v, want NotFound", err)
		}
	})

	t.Run("revoked, it is gone", func(t *testing.T) {
		if err := svc.Revoke(ctx, "me", "c1", l.ID); err != nil {
			t.Fatal(err)
		}
		if _, err := svc.Open(ctx, token); apperr.CodeOf(err) != apperr.NotFound {
			t.Errorf("opened after revoking: %v, want NotFound", err)
		}
	})
}

func TestParseExpiry(t *testing.T) {
	for in, want := range map[string]time.Duration{"": share.DefaultExpiry, "1h": time.Hour, "30d": 30 * 24 * time.Hour, "36h": 36 * time.Hour} {
		if got, err := share.ParseExpiry(in); err != nil || got != want {
			t.Errorf("ParseExpiry(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"59m", "31d", "forever", "-1d", "d"} {
		if _, err := share.ParseExpiry(in); apperr.CodeOf(err) != apperr.Invalid {
			t.Errorf("ParseExpiry(%q): %v, want Invalid", in, err)
		}
	}
}
