package cluster

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

// TestARelayPassesOnWholeEventsOnly: an event stream is passed on event by
// event, an event begun but not ended held back, so that a stream cut
// mid-event and resumed elsewhere leaves no torn event; a later owner's
// status and headers go nowhere, and its request names the last event
// passed on.
func TestARelayPassesOnWholeEventsOnly(t *testing.T) {
	rec := httptest.NewRecorder()
	out := &relay{w: rec}
	out.next()
	out.Header().Set("Content-Type", "text/event-stream")
	out.WriteHeader(http.StatusOK)
	for _, part := range []string{"id: 1\ndata: one\n", "\nid: 2\r\ndata: t", "wo\r\n\r\nid: 3\ndata: thr"} {
		if _, err := out.Write([]byte(part)); err != nil {
			t.Fatal(err)
		}
	}
	if got, want := rec.Body.String(), "id: 1\ndata: one\n\nid: 2\r\ndata: two\r\n\r\n"; got != want {
		t.Errorf("passed on %q, want %q", got, want)
	}

	// The stream is cut here; the next owner's goes on from event 2.
	out.next()
	out.Header().Set("Content-Type", "text/plain")
	out.WriteHeader(http.StatusTeapot)
	out.Write([]byte("id: 4\ndata: four\n\n"))
	out.finish()
	if got, want := rec.Body.String(), "id: 1\ndata: one\n\nid: 2\r\ndata: two\r\n\r\nid: 4\ndata: four\n\n"; got != want {
		t.Errorf("passed on %q, want %q", got, want)
	}
	if rec.Code != http.StatusOK || rec.Header().Get("Content-Type") != "text/event-stream" {
		t.Errorf("response %d %q, want the first owner's 200 text/event-stream", rec.Code, rec.Header().Get("Content-Type"))
	}
	req, ok := out.again(httptest.NewRequest("GET", "/c/c1/events", nil), &replay{})
	if !ok || req.Header.Get("Last-Event-ID") != "4" {
		t.Errorf("the next request's Last-Event-ID = %q, want 4", req.Header.Get("Last-Event-ID"))
	}
}
