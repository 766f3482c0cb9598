package transport

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/sweatpants-go/sweatpants/internal/tree"
)

// TestAMessageSentAgainWithItsIDIsAnsweredAsTheFirst checks POST
// /c/:id/messages with the id a page gives a message: the same message sent
// again — the page's retry after a lost response — is answered as the
// first send was (a page's with the patch that clears its composer, a
// script's with 204) and recorded once; the same id with other words is
// 409 and an id that is not one 400, each saying why and recording nothing.
func TestAMessageSentAgainWithItsIDIsAnsweredAsTheFirst(t *testing.T) {
	a := newTestApp(t)
	body := func(id, message string) string {
		b, _ := json.Marshal(map[string]string{"message": message, "messageId": id})
		return string(b)
	}
	// sent counts the records of what the user sent: a message sent while
	// the turn it started works is joined to it, or interrupts it, or is
	// decided on, by when it comes.
	sent := func(conv string) int {
		n := 0
		for _, nd := range a.nodes(t, conv) {
			switch nd.Kind {
			case tree.UserMessage, tree.Decision, tree.SideQuestion:
				n++
			}
		}
		return n
	}
	const cleared = "event: datastar-patch-signals\ndata: signals {\"_sent\":\"Plan a trip to Oslo\",\"attachments\":\"\",\"messageId\":\"\"}"

	t.Run("the page's message sent again", func(t *testing.T) {
		b := a.browser(t)
		conv := b.newConversation("concierge")
		for _, when := range []string{"first", "again"} {
			code, got := b.do(http.MethodPost, "/c/"+conv+"/messages", "application/json", body("7f3c9a2e-1b4d-4c8e-a5f6-0d9e8b7c6a51", "Plan a trip to Oslo"), "Datastar-Request", "true")
			if code != http.StatusOK || !strings.Contains(got, cleared) {
				t.Errorf("%s: got %d %q, want 200 and the composer cleared", when, code, got)
			}
		}
		if n := sent(conv); n != 1 {
			t.Errorf("the message was recorded %d times, want once", n)
		}
	})
	t.Run("a script's message sent again", func(t *testing.T) {
		b := a.browser(t)
		conv := b.newConversation("concierge")
		for _, when := range []string{"first", "again"} {
			if code, got := b.do(http.MethodPost, "/c/"+conv+"/messages", "application/json", body("m-1", "Plan a trip to Oslo")); code != http.StatusNoContent {
				t.Errorf("%s: got %d %q, want 204", when, code, got)
			}
		}
		if n := sent(conv); n != 1 {
			t.Errorf("the message was recorded %d times, want once", n)
		}
	})
	t.Run("refused", func(t *testing.T) {
		b := a.browser(t)
		conv := b.newConversation("concierge")
		if code, got := b.do(http.MethodPost, "/c/"+conv+"/messages", "application/json", body("m-1", "Plan a trip to Oslo")); code != http.StatusNoContent {
			t.Fatalf("got %d %q, want 204", code, got)
		}
		b.settled(t, conv) // the turn asked its question: nothing more is recorded
		before := a.nodeCount(t, conv)
		for _, tc := range []struct {
			name, body string
			code       int
			says       string
		}{
			{"the same id with other words", body("m-1", "Plan a trip to Rome"), http.StatusConflict, "already sent"},
			{"an id with a space", body("m 2", "Plan a trip to Rome"), http.StatusBadRequest, "A message id is"},
			{"an id of 65 letters", body(strings.Repeat("x", 65), "Plan a trip to Rome"), http.StatusBadRequest, "A message id is"},
			{"an id that is a number", `{"message":"Plan a trip to Rome","messageId":7}`, http.StatusBadRequest, ""},
		} {
			t.Run(tc.name, func(t *testing.T) {
				code, got := b.do(http.MethodPost, "/c/"+conv+"/messages", "application/json", tc.body)
				if code != tc.code || !strings.Contains(got, tc.says) {
					t.Errorf("got %d %q, want %d saying %q", code, got, tc.code, tc.says)
				}
				if n := a.nodeCount(t, conv); n != before {
					t.Errorf("%d nodes after the refusal, want %d", n, before)
				}
			})
		}
	})
}
