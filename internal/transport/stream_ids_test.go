package transport

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"
)

// The page's stream starts over with the whole page on every connection,
// so a browser has nothing to resume from: its events carry no id, and a
// reconnecting browser sends no Last-Event-ID that the stream would
// ignore.
func TestThePageStreamStampsNoEventIDs(t *testing.T) {
	a := newTestApp(t)
	b := a.browser(t)
	conv := b.newConversation("survey")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	res, err := b.open(ctx, "/c/"+conv+"/stream")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if code, body := b.do(http.MethodPost, "/c/"+conv+"/messages", "application/json", `{"message":"1"}`); code != http.StatusNoContent {
		t.Fatalf("send message = %d %s", code, body)
	}
	var events, asked int
	parseSSE(res.Body, func(e sseEvent) bool {
		events++
		if e.ID != "" {
			t.Errorf("event %d (%s) carries the id %q", events, e.Type, e.ID)
		}
		if strings.Contains(e.Data(), `data-state="pending"`) {
			asked++
		}
		return asked == 0 // until the survey's question shows
	})
	if asked == 0 {
		t.Fatalf("the stream ended after %d events without the question: %v", events, ctx.Err())
	}
}
