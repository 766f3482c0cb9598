package transport

import (
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"testing"

	"github.com/sweatpants-go/sweatpants/internal/tree"
)

// replied starts a conversation with the chat agent, sends a message and
// returns the conversation and the node of its reply and of its message.
func replied(t *testing.T, a *testApp, b *browser) (conv string, reply, msg int64) {
	t.Helper()
	conv = b.newConversation("chat")
	if code, body := b.do("POST", "/c/"+conv+"/messages", "application/json", `{"message":"hello"}`); code != 204 {
		t.Fatalf("send = %d %q", code, body)
	}
	nodes := func() []tree.Node {
		ns, err := a.db.Nodes(t.Context(), conv)
		if err != nil {
			t.Fatal(err)
		}
		return ns
	}
	waitFor(t, "the reply", func() bool {
		for _, n := range nodes() {
			if n.Kind == tree.AssistantMessage {
				return true
			}
		}
		return false
	})
	for _, n := range nodes() {
		switch n.Kind {
		case tree.AssistantMessage:
			reply = n.ID
		case tree.UserMessage:
			msg = n.ID
		}
	}
	return conv, reply, msg
}

// Feedback is given by a form post and exported as JSON; bad feedback gets
// a clear status and message and records nothing.
func TestFeedbackOnARepliesEndpoint(t *testing.T) {
	a := newTestApp(t)
	owner := a.browser(t)
	conv, reply, msg := replied(t, a, owner)
	before := a.nodeCount(t, conv)
	form := "application/x-www-form-urlencoded"
	path := func(node int64) string { return fmt.Sprintf("/c/%s/replies/%d/feedback", conv, node) }

	for _, tc := range []struct {
		name, path, contentType, body string
		who                           *browser
		wantStatus                    int
		wantBody                      string
	}{
		{"an unknown rating", path(reply), form, "rating=meh", owner, 400, "up, down or none"},
		{"no rating", path(reply), form, "comment=hm", owner, 400, "up, down or none"},
		{"an overlong comment", path(reply), form, "rating=down&comment=" + strings.Repeat("x", 2001), owner, 400, "the limit is 2000"},
		{"an unknown reply", path(999999), form, "rating=up", owner, 404, "There is no reply 999999"},
		{"a message, not a reply", path(msg), form, "rating=up", owner, 404, fmt.Sprintf("There is no reply %d", msg)},
		{"a node that is no number", "/c/" + conv + "/replies/x/feedback", form, "rating=up", owner, 404, "There is no message or answer"},
		{"not a form", path(reply), "application/json", `{"rating":"up"}`, owner, 400, "as a form"},
		{"another session's conversation", path(reply), form, "rating=up", a.browser(t), 404, "There is no conversation"},
		{"another session's export", "/c/" + conv + "/feedback.json", "", "", a.browser(t), 404, "There is no conversation"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.who.t = t
			method := "POST"
			if tc.body == "" {
				method = "GET"
			}
			code, body := tc.who.do(method, tc.path, tc.contentType, tc.body)
			if code != tc.wantStatus || !strings.Contains(body, tc.wantBody) {
				t.Errorf("got %d %q, want %d containing %q", code, body, tc.wantStatus, tc.wantBody)
			}
		})
	}
	owner.t = t
	if got := a.nodeCount(t, conv); got != before {
		t.Fatalf("refused feedback changed the record: %d nodes, want %d", got, before)
	}

	if code, body := owner.do("POST", path(reply), form, "rating=down&comment="+url.QueryEscape("<b>too long</b>")); code != 204 {
		t.Fatalf("feedback = %d %q, want 204", code, body)
	}
	if code, body := owner.do("POST", path(reply), form, "rating=down&close=1&comment="+url.QueryEscape("<b>better</b> now")); code != 200 || !strings.Contains(body, "_feedback") {
		t.Fatalf("feedback from the comment box = %d %q, want the box closed", code, body)
	}
	code, body := owner.do("GET", "/c/"+conv+"/feedback.json", "", "")
	var got struct {
		Conversation string `json:"conversation"`
		Feedback     []struct {
			Reply   int64  `json:"reply"`
			Current bool   `json:"current"`
			Rating  string `json:"rating"`
			Comment string `json:"comment"`
		} `json:"feedback"`
	}
	if code != 200 || json.Unmarshal([]byte(body), &got) != nil {
		t.Fatalf("export = %d %q", code, body)
	}
	if got.Conversation != conv || len(got.Feedback) != 1 || got.Feedback[0].Reply != reply || got.Feedback[0].Rating != "down" || got.Feedback[0].Comment != "<b>better</b> now" || !got.Feedback[0].Current {
		t.Errorf("export = %+v, want the newest feedback on reply %d", got, reply)
	}

	// The page shows it, the comment escaped.
	code, page := owner.do("GET", "/c/"+conv, "", "")
	if code != 200 || !strings.Contains(page, `data-rating="down"`) || !strings.Contains(page, "&lt;b&gt;better&lt;/b&gt; now") || strings.Contains(page, "<b>better") {
		t.Errorf("the page does not show the feedback given, escaped")
	}

	// The tree inspector says what each feedback node records.
	code, treePage := owner.do("GET", "/c/"+conv+"/tree", "", "")
	if want := fmt.Sprintf("thumbs down on #%d: “&lt;b&gt;better&lt;/b&gt; now”", reply); code != 200 || !strings.Contains(treePage, want) {
		t.Errorf("the inspector does not say %q", want)
	}

	// The calls page shows it beside the model call that made the reply.
	code, calls := owner.do("GET", "/c/"+conv+"/debug", "", "")
	if want := "👎 bad reply: &lt;b&gt;better&lt;/b&gt; now"; code != 200 || !strings.Contains(calls, want) {
		t.Errorf("the calls page does not say %q", want)
	}
}
