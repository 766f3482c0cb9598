package transport

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"strings"
	"testing"
	"time"
)

// The event stream over HTTP, driven as a non-browser client does (curl,
// a script): no Origin, no fetch metadata, a cookie jar.

// client is a non-browser client of the app: it keeps the session cookie
// and sends none of a browser's headers.
type client struct {
	t    *testing.T
	base string
	c    *http.Client
}

func newClient(t *testing.T, a *testApp) *client {
	jar, _ := cookiejar.New(nil)
	return &client{t: t, base: a.srv.URL, c: &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error {
		return http.ErrUseLastResponse
	}}}
}

func (cl *client) post(path, contentType, body string) (int, string, http.Header) {
	cl.t.Helper()
	res, err := cl.c.Post(cl.base+path, contentType, strings.NewReader(body))
	if err != nil {
		cl.t.Fatal(err)
	}
	defer res.Body.Close()
	out, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(out), res.Header
}

// start starts a conversation with its first message, as
// `curl -c jar -d agent=… -d message=… /c` does, and returns its id.
func (cl *client) start(agent, message string) string {
	cl.t.Helper()
	code, body, h := cl.post("/c", "application/x-www-form-urlencoded", url.Values{"agent": {agent}, "message": {message}}.Encode())
	if code != http.StatusSeeOther {
		cl.t.Fatalf("POST /c = %d %s, want 303", code, body)
	}
	return strings.TrimPrefix(h.Get("Location"), "/c/")
}

// jsonEvent is an event as a client reads it off the wire.
type jsonEvent struct {
	Type, ID string
	Data     map[string]any
	Raw      string
}

// eventsClient reads one open event stream.
type eventsClient struct {
	t      *testing.T
	cancel context.CancelFunc
	events chan jsonEvent
	ended  chan error
}

// openEvents opens GET /c/:id/events, with lastID as Last-Event-ID when
// set. It returns the stream, or the status and body of a refusal.
func (cl *client) openEvents(conv, lastID string) (*eventsClient, int, string) {
	cl.t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, cl.base+"/c/"+conv+"/events", nil)
	if lastID != "" {
		req.Header.Set("Last-Event-ID", lastID)
	}
	res, err := cl.c.Do(req)
	if err != nil {
		cancel()
		cl.t.Fatal(err)
	}
	if res.StatusCode != http.StatusOK {
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		cancel()
		return nil, res.StatusCode, string(body)
	}
	if ct := res.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/event-stream") {
		cl.t.Fatalf("Content-Type %q, want text/event-stream", ct)
	}
	ec := &eventsClient{t: cl.t, cancel: cancel, events: make(chan jsonEvent, 1024), ended: make(chan error, 1)}
	go func() {
		defer res.Body.Close()
		ec.ended <- parseSSE(res.Body, func(e sseEvent) bool {
			je := jsonEvent{Type: e.Type, ID: e.ID, Raw: e.Data()}
			if len(e.Lines) != 1 {
				je.Type = "more than one data line"
			} else if err := json.Unmarshal([]byte(e.Lines[0]), &je.Data); err != nil {
				je.Type = "data that is not JSON"
			}
			ec.events <- je
			return true
		})
	}()
	cl.t.Cleanup(ec.close)
	return ec, http.StatusOK, ""
}

func (ec *eventsClient) close() { ec.cancel() }

// until reads events until one of type typ and returns them all.
func (ec *eventsClient) until(typ string) []jsonEvent {
	ec.t.Helper()
	var got []jsonEvent
	deadline := time.After(10 * time.Second)
	for {
		select {
		case e := <-ec.events:
			got = append(got, e)
			if e.Type == typ {
				return got
			}
		case err := <-ec.ended:
			ec.t.Fatalf("the stream ended (%v) before %s; read %v", err, typ, got)
		case <-deadline:
			ec.t.Fatalf("no %s within 10s; read %v", typ, got)
		}
	}
}

// take reads exactly n events.
func (ec *eventsClient) take(n int) []jsonEvent {
	ec.t.Helper()
	var got []jsonEvent
	deadline := time.After(10 * time.Second)
	for len(got) < n {
		select {
		case e := <-ec.events:
			got = append(got, e)
		case err := <-ec.ended:
			ec.t.Fatalf("the stream ended (%v) after %d of %d events", err, len(got), n)
		case <-deadline:
			ec.t.Fatalf("%d of %d events within 10s", len(got), n)
		}
	}
	return got
}

// replyOf applies the deltas of evs at their offsets, as a client does.
func replyOf(t *testing.T, evs []jsonEvent) string {
	t.Helper()
	var text string
	for _, e := range evs {
		if e.Type != "token.delta" {
			continue
		}
		off := int(e.Data["offset"].(float64))
		if off > len(text) {
			t.Fatalf("delta at %d past %d bytes", off, len(text))
		}
		text = text[:off] + e.Data["text"].(string)
	}
	return text
}

// A client without a browser starts a conversation, follows its events,
// answers the question it is asked and sends a message, all over plain
// HTTP with its session cookie; then it resumes from the middle and gets
// exactly the rest.
func TestAClientFollowsAConversationsEventsOverHTTP(t *testing.T) {
	a := newTestApp(t)
	cl := newClient(t, a)
	conv := cl.start("concierge", "Plan a trip to Oslo")
	ec, code, body := cl.openEvents(conv, "")
	if code != http.StatusOK {
		t.Fatalf("GET events = %d %s", code, body)
	}
	asked := ec.until("elicit.asked")
	if asked[0].Type != "run.started" || asked[0].Data["text"] != "Plan a trip to Oslo" {
		t.Fatalf("first event %+v, want the run's start with the message", asked[0])
	}
	eid := asked[len(asked)-1].Data["elicit"].(string)
	if code, body, _ := cl.post("/c/"+conv+"/elicits/"+eid, "application/json",
		`{"action":"accept","content":{"destination":"Oslo","travellers":2,"cabin":"economy","hotel":false}}`); code != http.StatusNoContent {
		t.Fatalf("answer = %d %s", code, body)
	}
	first := append(asked, ec.until("run.completed")...)
	done := first[len(first)-1].Data
	if done["status"] != "replied" || !strings.HasPrefix(done["text"].(string), "Your trip to Oslo is planned") {
		t.Fatalf("run.completed %v", done)
	}
	if got := replyOf(t, first); got != done["text"] {
		t.Errorf("deltas give %q, want the reply %q", got, done["text"])
	}
	usage := done["usage"].(map[string]any)
	if usage["model_calls"].(float64) < 2 || usage["tokens_in"].(float64) == 0 || usage["tokens_out"].(float64) == 0 {
		t.Errorf("usage %v, want the run's model calls and their tokens", usage)
	}
	var seenTool bool
	for _, e := range first {
		seenTool = seenTool || e.Type == "tool.result" && e.Data["tool"] == "plan-trip"
	}
	if !seenTool {
		t.Errorf("no tool.result of plan-trip in %v", first)
	}

	if code, body, _ := cl.post("/c/"+conv+"/messages", "application/json", `{"message":"Plan a trip to Riga"}`); code != http.StatusNoContent {
		t.Fatalf("send = %d %s", code, body)
	}
	ec.until("elicit.asked")
	ec.close()

	// Read from the start, then resumed from each event, the stream goes
	// on with exactly what followed it.
	whole, code, body := cl.openEvents(conv, "")
	if code != http.StatusOK {
		t.Fatalf("GET events = %d %s", code, body)
	}
	all := append(whole.until("run.completed"), whole.until("elicit.asked")...)
	for i, e := range all[:len(all)-1] {
		again, code, body := cl.openEvents(conv, e.ID)
		if code != http.StatusOK {
			t.Fatalf("resume after %s = %d %s", e.ID, code, body)
		}
		rest := all[i+1:]
		got := again.take(len(rest))
		again.close()
		for j := range rest {
			if got[j].ID != rest[j].ID || got[j].Type != rest[j].Type || got[j].Raw != rest[j].Raw {
				t.Fatalf("after %s, event %d = %s %s %s, want %s %s %s", e.ID, j, got[j].ID, got[j].Type, got[j].Raw, rest[j].ID, rest[j].Type, rest[j].Raw)
			}
		}
	}
}

// The stream is the session's: another session, or none, gets 404; a
// Last-Event-ID the stream never sent gets 400 saying what to send.
func TestTheEventStreamRefusesOthersAndBadIDs(t *testing.T) {
	a := newTestApp(t)
	owner := newClient(t, a)
	conv := owner.start("survey", "hello")
	for name, cl := range map[string]*client{"another session": newClient(t, a), "no session": {t: t, base: a.srv.URL, c: http.DefaultClient}} {
		if _, code, body := cl.openEvents(conv, ""); code != http.StatusNotFound || !strings.Contains(body, "There is no conversation") {
			t.Errorf("%s: %d %q, want 404", name, code, body)
		}
	}
	for _, id := range []string{"nonsense", "1:0", "99999999"} {
		if _, code, body := owner.openEvents(conv, id); code != http.StatusBadRequest || !strings.Contains(body, "Last-Event-ID") {
			t.Errorf("Last-Event-ID %q: %d %q, want 400 naming the header", id, code, body)
		}
	}
	// A refusal changes nothing: the stream from the start still opens.
	ec, code, body := owner.openEvents(conv, "")
	if code != http.StatusOK {
		t.Fatalf("%d %s", code, body)
	}
	if e := ec.until("run.started"); e[0].Data["text"] != "hello" {
		t.Errorf("first event %+v", e[0])
	}
}
