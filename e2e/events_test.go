package e2e

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/sweatpants-go/sweatpants/llm/llmtest"
)

// The JSON event stream against the real binary, as a client without a
// browser uses it: a reply streams; the client drops the connection
// mid-reply and reconnects with Last-Event-ID, once while the reply still
// streams and once after it ended; the events it got add up to the whole
// run with nothing missing and nothing twice, and the deltas joined are
// the reply.
func TestTheEventStreamResumesAfterADroppedConnection(t *testing.T) {
	t.Parallel()
	story := []string{"Once ", "upon ", "a ", "time ", "a ", "fox ", "found ", "a ", "map ", "and ", "went ", "north."}
	sequel := []string{"Then ", "it ", "came ", "home ", "again."}
	model := llmtest.NewServer(t, llmtest.Text(story...), llmtest.Text(sequel...))
	gate := newModelGate(t, model)
	a := startApp(t, "SWEATPANTS_PROVIDER=openai", "OPENAI_API_KEY=test", "OPENAI_BASE_URL="+gate.URL)
	cl := newEventsClient(t, a)

	// Four words stream, and the client has them.
	gate.allow(4)
	conv := cl.start("assistant", "Tell me a story")
	first := cl.open(conv, "")
	got := first.until("the first four words", func(evs []streamEvent) bool { return deltasJoined(evs) == strings.Join(story[:4], "") })
	first.close()

	// While it is away, three more come; it comes back while the reply
	// still streams, and is sent the rest of the draft from where it was.
	gate.allow(3)
	gate.waitPassed(t, 7)
	second := cl.open(conv, got[len(got)-1].ID)
	resumed := second.take(1)[0]
	if resumed.Type != "token.delta" || int(resumed.Data["offset"].(float64)) != len(strings.Join(story[:4], "")) {
		t.Fatalf("first event after coming back: %s %s, want the draft's rest from byte %d", resumed.Type, resumed.Raw, len(strings.Join(story[:4], "")))
	}
	got = append(got, resumed)
	gate.allow(len(story) - 7)
	got = append(got, second.until("the run's end", endsRun)...)
	checkRun(t, got, "Tell me a story", strings.Join(story, ""))

	// The next reply: the client leaves after two words and comes back
	// after the reply was recorded (another stream of the session sees it
	// end): it is sent the rest of the reply, then the end.
	watcher := cl.open(conv, got[len(got)-1].ID)
	gate.allow(2)
	cl.send(conv, "And then?")
	more := second.until("two words of the sequel", func(evs []streamEvent) bool {
		return deltasJoined(evs) == strings.Join(sequel[:2], "")
	})
	second.close()
	gate.allow(len(sequel) - 2)
	watcher.until("the sequel's end", endsRun)
	third := cl.open(conv, more[len(more)-1].ID)
	rest := third.until("the sequel's end", endsRun)
	if len(rest) != 2 || rest[0].Type != "token.delta" || int(rest[0].Data["offset"].(float64)) != len(strings.Join(sequel[:2], "")) {
		t.Fatalf("after coming back:%s\nwant the rest of the reply from byte %d, then the end", describeEvents(rest), len(strings.Join(sequel[:2], "")))
	}
	checkRun(t, append(more, rest...), "And then?", strings.Join(sequel, ""))

	// Every id was given once, across the four connections, and a stream
	// read from the start gives the same runs.
	all := append(got, append(more, rest...)...)
	seen := map[string]bool{}
	for _, e := range all {
		if seen[e.ID] {
			t.Errorf("event %s came twice:%s", e.ID, describeEvents(all))
		}
		seen[e.ID] = true
	}
	whole := cl.open(conv, "")
	replay := whole.until("the first run's end", endsRun)
	replay = append(replay, whole.until("the second run's end", endsRun)...)
	if n := len(replay); replay[n-1].Raw != rest[1].Raw || replay[n-1].ID != rest[1].ID {
		t.Errorf("read from the start, the last event is %s %s, want %s %s", replay[n-1].ID, replay[n-1].Raw, rest[1].ID, rest[1].Raw)
	}
}

// endsRun is true once the events read hold a run's end.
func endsRun(evs []streamEvent) bool { return evs[len(evs)-1].Type == "run.completed" }

// checkRun checks the events of one run as a client got them: its start
// once, its deltas one after another (each at the offset where the last
// ended) adding up to the reply, and its end, replied, with tokens.
func checkRun(t *testing.T, evs []streamEvent, message, reply string) {
	t.Helper()
	var started int
	var text string
	for _, e := range evs {
		switch e.Type {
		case "run.started":
			started++
			if e.Data["text"] != message {
				t.Errorf("run.started %s, want the message %q", e.Raw, message)
			}
		case "token.delta":
			if off := int(e.Data["offset"].(float64)); off != len(text) {
				t.Errorf("a delta at %d after %d bytes: a gap or a repeat:%s", off, len(text), describeEvents(evs))
			}
			text += e.Data["text"].(string)
		}
	}
	if started > 1 {
		t.Errorf("run.started %d times:%s", started, describeEvents(evs))
	}
	end := evs[len(evs)-1]
	if end.Type != "run.completed" || end.Data["status"] != "replied" || end.Data["text"] != reply {
		t.Fatalf("the run ended with %s %s, want replied %q", end.Type, end.Raw, reply)
	}
	if text != reply {
		t.Errorf("deltas joined %q, want the reply %q:%s", text, reply, describeEvents(evs))
	}
	usage, _ := end.Data["usage"].(map[string]any)
	if usage["model_calls"] != 1.0 || usage["tokens_out"].(float64) <= 0 || usage["tokens_in"].(float64) <= 0 {
		t.Errorf("usage %v, want the one model call's tokens", usage)
	}
}

// eventsClient is a client of the app without a browser: a cookie jar,
// none of a browser's headers.
type eventsClient struct {
	t    *testing.T
	base string
	http *http.Client
}

func newEventsClient(t *testing.T, a *app) *eventsClient {
	jar, _ := cookiejar.New(nil)
	return &eventsClient{t: t, base: a.URL, http: &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error {
		return http.ErrUseLastResponse
	}}}
}

// start starts a conversation with its first message: POST /c, as curl -d
// does it; the answer's cookie is the session.
func (cl *eventsClient) start(agent, message string) string {
	cl.t.Helper()
	res, err := cl.http.PostForm(cl.base+"/c", url.Values{"agent": {agent}, "message": {message}})
	if err != nil {
		cl.t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusSeeOther {
		cl.t.Fatalf("POST /c = %d, want 303", res.StatusCode)
	}
	return strings.TrimPrefix(res.Header.Get("Location"), "/c/")
}

// send sends a message: POST /c/:id/messages with JSON.
func (cl *eventsClient) send(conv, message string) {
	cl.t.Helper()
	body, _ := json.Marshal(map[string]string{"message": message})
	res, err := cl.http.Post(cl.base+"/c/"+conv+"/messages", "application/json", bytes.NewReader(body))
	if err != nil {
		cl.t.Fatal(err)
	}
	out, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != http.StatusNoContent {
		cl.t.Fatalf("send = %d %s", res.StatusCode, out)
	}
}

// streamEvent is an event as read off the wire.
type streamEvent struct {
	Type, ID, Raw string
	Data          map[string]any
}

// openStream is one open GET /c/:id/events.
type openStream struct {
	t      *testing.T
	cancel context.CancelFunc
	events chan streamEvent
	ended  chan error
}

// open opens the conversation's event stream after lastID ("" from the
// start).
func (cl *eventsClient) open(conv, lastID string) *openStream {
	cl.t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, cl.base+"/c/"+conv+"/events", nil)
	if lastID != "" {
		req.Header.Set("Last-Event-ID", lastID)
	}
	res, err := cl.http.Do(req)
	if err != nil {
		cancel()
		cl.t.Fatal(err)
	}
	if res.StatusCode != http.StatusOK {
		out, _ := io.ReadAll(res.Body)
		res.Body.Close()
		cancel()
		cl.t.Fatalf("GET events after %q = %d %s", lastID, res.StatusCode, out)
	}
	s := &openStream{t: cl.t, cancel: cancel, events: make(chan streamEvent, 1024), ended: make(chan error, 1)}
	go s.read(res.Body)
	cl.t.Cleanup(s.close)
	return s
}

// read parses the stream: "event:", "id:" and one "data:" line of JSON
// per event, a blank line after each.
func (s *openStream) read(body io.ReadCloser) {
	defer body.Close()
	sc := bufio.NewScanner(body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	var e streamEvent
	for sc.Scan() {
		field, value, _ := strings.Cut(sc.Text(), ": ")
		switch field {
		case "event":
			e.Type = value
		case "id":
			e.ID = value
		case "data":
			e.Raw = value
			if err := json.Unmarshal([]byte(value), &e.Data); err != nil {
				s.ended <- err
				return
			}
		case "":
			if e.Type != "" {
				s.events <- e
			}
			e = streamEvent{}
		}
	}
	s.ended <- sc.Err()
}

// close drops the connection.
func (s *openStream) close() { s.cancel() }

// until reads events until done holds for those read, and returns them.
func (s *openStream) until(what string, done func([]streamEvent) bool) []streamEvent {
	s.t.Helper()
	var got []streamEvent
	deadline := time.After(patience(20 * time.Second))
	for {
		select {
		case e := <-s.events:
			got = append(got, e)
			if done(got) {
				return got
			}
		case err := <-s.ended:
			s.t.Fatalf("the stream ended (%v) before %s:%s", err, what, describeEvents(got))
		case <-deadline:
			s.t.Fatalf("no %s within 20s:%s", what, describeEvents(got))
		}
	}
}

// take reads exactly n events.
func (s *openStream) take(n int) []streamEvent {
	s.t.Helper()
	return s.until("the next events", func(evs []streamEvent) bool { return len(evs) == n })
}

func deltasJoined(evs []streamEvent) string {
	var b strings.Builder
	for _, e := range evs {
		if e.Type == "token.delta" {
			b.WriteString(e.Data["text"].(string))
		}
	}
	return b.String()
}

func describeEvents(evs []streamEvent) string {
	var b strings.Builder
	for _, e := range evs {
		b.WriteString("\n  " + e.ID + " " + e.Type + " " + e.Raw)
	}
	return b.String()
}

// modelGate holds the test model's streamed text (llmtest.Server.Gate): each
// chunk of text passes only when the test allows one more, so the test
// says how far a reply has streamed, without timing. The model itself
// holds it, so nothing stands between the app and the model's connection.
type modelGate struct {
	URL    string // what OPENAI_BASE_URL should be
	tokens chan struct{}
	passed chan struct{} // one value per text chunk passed
	count  int
}

func newModelGate(t *testing.T, model *llmtest.Server) *modelGate {
	g := &modelGate{URL: model.URL, tokens: make(chan struct{}, 1024), passed: make(chan struct{}, 1024)}
	model.Gate(func(ctx context.Context) bool {
		select {
		case <-g.tokens:
			g.passed <- struct{}{}
			return true
		case <-ctx.Done():
			return false
		}
	})
	return g
}

// allow lets n more chunks of text through.
func (g *modelGate) allow(n int) {
	for range n {
		g.tokens <- struct{}{}
	}
}

// waitPassed waits until n chunks of text have passed in all.
func (g *modelGate) waitPassed(t *testing.T, n int) {
	t.Helper()
	deadline := time.After(patience(20 * time.Second))
	for g.count < n {
		select {
		case <-g.passed:
			g.count++
		case <-deadline:
			t.Fatalf("%d of %d text events passed to the app within 20s", g.count, n)
		}
	}
}
