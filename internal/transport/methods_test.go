package transport

import (
	"net/http"
	"strings"
	"testing"
)

// A page says which methods it implements; a body that is not the list,
// or a name no method has, is refused with the reason, and another
// session's conversation is not found.
func TestAPagePostsTheMethodsItImplements(t *testing.T) {
	a := newTestApp(t)
	b := a.browser(t)
	conv := b.newConversation("showcase")
	for _, tc := range []struct {
		body string
		code int
		says string
	}{
		{`{"methods":["location","clipboard-read"]}`, http.StatusNoContent, ""},
		{`{"methods":["<script>"]}`, http.StatusBadRequest, "is not a method's name"},
		{`{"implemented":["location"]}`, http.StatusBadRequest, "does not take"},
		{`not json`, http.StatusBadRequest, ""},
	} {
		code, body := b.do(http.MethodPost, "/c/"+conv+"/methods", "application/json", tc.body)
		if code != tc.code || !strings.Contains(body, tc.says) {
			t.Errorf("POST %s = %d %q, want %d saying %q", tc.body, code, body, tc.code, tc.says)
		}
	}
	other := a.browser(t)
	if code, _ := other.do(http.MethodPost, "/c/"+conv+"/methods", "application/json", `{"methods":["location"]}`); code != http.StatusNotFound {
		t.Errorf("another browser's POST = %d, want 404", code)
	}
}
