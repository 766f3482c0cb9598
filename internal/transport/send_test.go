package transport

import (
	"encoding/json"
	"io"
	"maps"
	"net/http"
	"strings"
	"testing"

	"github.com/sweatpants-go/sweatpants/internal/inbound"
)

// TestSendMessageAnswers checks how POST /c/:id/messages answers: a page's
// own request (Datastar's) with a patch that clears its composer, and a
// script with a plain answer — 204 for a message that started a turn, JSON
// saying what a message did when it did something else.
func TestSendMessageAnswers(t *testing.T) {
	a := newTestApp(t)
	send := func(t *testing.T, b *browser, conv, message string, header ...string) (*http.Response, string) {
		t.Helper()
		body, _ := json.Marshal(map[string]string{"message": message})
		req, err := http.NewRequest(http.MethodPost, a.srv.URL+"/c/"+conv+"/messages", strings.NewReader(string(body)))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Origin", a.srv.URL)
		req.Header.Set("Content-Type", "application/json")
		for i := 0; i+1 < len(header); i += 2 {
			req.Header.Set(header[i], header[i+1])
		}
		res, err := b.c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		out, _ := io.ReadAll(res.Body)
		return res, string(out)
	}

	t.Run("a script's message that starts a turn", func(t *testing.T) {
		b := a.browser(t)
		res, body := send(t, b, b.newConversation("concierge"), "Plan a trip to Oslo")
		if got, want := res.StatusCode, http.StatusNoContent; got != want || body != "" {
			t.Errorf("got %d %q, want %d and no body", got, body, want)
		}
	})
	t.Run("a script's message that does something else", func(t *testing.T) {
		b := a.browser(t)
		conv := b.newConversation("concierge")
		b.pendingElicit(conv, "Plan a trip to Riga")
		res, body := send(t, b, conv, "what is the weather there?")
		if got, want := res.StatusCode, http.StatusOK; got != want {
			t.Fatalf("got %d %q, want %d", got, body, want)
		}
		if got, want := res.Header.Get("Content-Type"), "application/json"; !strings.HasPrefix(got, want) {
			t.Errorf("got Content-Type %q, want %q", got, want)
		}
		var got map[string]string
		if err := json.Unmarshal([]byte(body), &got); err != nil {
			t.Fatalf("got %q: %v", body, err)
		}
		if want := map[string]string{"sent": string(inbound.SentSide), "say": inbound.SentSide.Say()}; !maps.Equal(got, want) {
			t.Errorf("got %v, want %v", got, want)
		}
	})
	t.Run("the page's message", func(t *testing.T) {
		b := a.browser(t)
		res, body := send(t, b, b.newConversation("concierge"), "Plan a trip to Bern", "Datastar-Request", "true")
		if got, want := res.StatusCode, http.StatusOK; got != want {
			t.Fatalf("got %d %q, want %d", got, body, want)
		}
		if got, want := res.Header.Get("Content-Type"), "text/event-stream"; !strings.HasPrefix(got, want) {
			t.Errorf("got Content-Type %q, want %q", got, want)
		}
		if want := "event: datastar-patch-signals\ndata: signals {\"_sent\":\"Plan a trip to Bern\",\"attachments\":\"\",\"messageId\":\"\"}"; !strings.Contains(body, want) {
			t.Errorf("got %q, want the composer cleared: %q", body, want)
		}
	})
}
