package mcp_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sweatpants-go/sweatpants/internal/chat"
	"github.com/sweatpants-go/sweatpants/internal/mcp"
	"github.com/sweatpants-go/sweatpants/internal/offline"
	"github.com/sweatpants-go/sweatpants/internal/registry"
	"github.com/sweatpants-go/sweatpants/internal/store/storetest"
)

// sseEvent is one event of a stream: its id and its data.
type sseEvent struct{ id, data string }

// readEvents sends the events of body to the channel until it ends.
func readEvents(body io.ReadCloser) <-chan sseEvent {
	ch := make(chan sseEvent, 16)
	go func() {
		defer close(ch)
		defer body.Close()
		sc := bufio.NewScanner(body)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		var ev sseEvent
		for sc.Scan() {
			line := sc.Text()
			switch {
			case strings.HasPrefix(line, "id: "):
				ev.id = strings.TrimPrefix(line, "id: ")
			case strings.HasPrefix(line, "data: "):
				ev.data += strings.TrimPrefix(line, "data: ")
			case line == "":
				if ev.id != "" || ev.data != "" {
					ch <- ev
				}
				ev = sseEvent{}
			}
		}
	}()
	return ch
}

// until returns the first event of ch whose data holds want.
func until(t *testing.T, ch <-chan sseEvent, want string) sseEvent {
	t.Helper()
	deadline := time.After(10 * time.Second)
	var seen []string
	for {
		select {
		case ev, ok := <-ch:
			if !ok {
				t.Fatalf("the stream ended before an event with %s; it sent %q", want, seen)
			}
			seen = append(seen, ev.data)
			if strings.Contains(ev.data, want) {
				return ev
			}
		case <-deadline:
			t.Fatalf("no event with %s within 10s", want)
		}
	}
}

// through returns the events of ch up to the first whose data holds want,
// that one last.
func through(t *testing.T, ch <-chan sseEvent, want string) []sseEvent {
	t.Helper()
	deadline := time.After(10 * time.Second)
	var seen []sseEvent
	for {
		select {
		case ev, ok := <-ch:
			if !ok {
				t.Fatalf("the stream ended before an event with %s; it sent %+v", want, seen)
			}
			seen = append(seen, ev)
			if strings.Contains(ev.data, want) {
				return seen
			}
		case <-deadline:
			t.Fatalf("no event with %s within 10s; the stream sent %+v", want, seen)
		}
	}
}

// rawSession speaks MCP 2025-11-25 over HTTP by hand, so that a test sees
// each stream and event as the wire carries them.
type rawSession struct {
	t  *testing.T
	id string
}

func (s *rawSession) do(method, url, body string, header ...string) *http.Response {
	s.t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		s.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if s.id != "" {
		req.Header.Set("Mcp-Session-Id", s.id)
		req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		s.t.Fatal(err)
	}
	return res
}

// TestASessionIsBegunAgainAfterARestart: the server goes down while a
// call's question is with the client of a 2025-11-25 session. Started again
// on the same database, it knows the session: the client resumes the
// call's stream with Last-Event-ID and is sent the question it missed; its
// retry of the call in the same session is not asked it again, its answer
// to the question replayed reaches the turn, and the call finishes once,
// its result both the retry's and on the call's own stream.
func TestASessionIsBegunAgainAfterARestart(t *testing.T) {
	db := storetest.Open(t)
	tools := mcp.NewTools(testAgents()...)
	owner, secret := chat.NewSessionID(), []byte(strings.Repeat("s", 32))
	start := func() (*chat.Service, *httptest.Server) {
		svc := chat.New(chat.Config{Store: db, Assistants: registry.New(tools.Assistant()), Model: offline.New(), DecideByRule: true})
		srv := mcp.NewServer(mcp.Config{Chat: svc, Tools: tools, Owner: owner, Secret: secret, Events: db, Sessions: db, Name: "t", Version: "1"})
		return svc, httptest.NewServer(mcp.Handler(srv, "", nil))
	}
	svcA, a := start()
	s := &rawSession{t: t}
	res := s.do("POST", a.URL, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25",`+
		`"capabilities":{"elicitation":{"form":{}}},"clientInfo":{"name":"raw","version":"1"}}}`)
	if s.id = res.Header.Get("Mcp-Session-Id"); s.id == "" {
		t.Fatalf("initialize answered %d without a session", res.StatusCode)
	}
	until(t, readEvents(res.Body), `"protocolVersion"`) // its result, before initialized is sent
	s.do("POST", a.URL, `{"jsonrpc":"2.0","method":"notifications/initialized"}`).Body.Close()
	// The server handles the notification after it answered its POST, and
	// records the session then: a call is taken once it has.
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(time.Millisecond) {
		if _, ok, err := db.MCPSession(context.Background(), s.id); err != nil || ok {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the session was not recorded once initialized")
		}
	}
	call := `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"host.greet","arguments":{"greeting":"Hi"}}}`
	asked := until(t, readEvents(s.do("POST", a.URL, call).Body), `"elicitation/create"`)

	// Down, as by SIGKILL: nothing recorded after, connections cut.
	svcA.Close()
	a.CloseClientConnections()
	a.Close()
	svcB, b := start()
	defer b.Close()
	defer svcB.Close()

	stream, idx, ok := strings.Cut(asked.id, "_")
	n, err := strconv.Atoi(idx)
	if !ok || err != nil || n < 1 {
		t.Fatalf("the question's event id is %q; want STREAM_N with an event before it", asked.id)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", b.URL, nil)
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Mcp-Session-Id", s.id)
	req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
	req.Header.Set("Last-Event-ID", fmt.Sprintf("%s_%d", stream, n-1))
	res, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if res.StatusCode != http.StatusOK {
		body, _ := io.ReadAll(res.Body)
		t.Fatalf("resuming the stream after the restart: %d %s", res.StatusCode, body)
	}
	if again := until(t, readEvents(res.Body), `"elicitation/create"`); again.id != asked.id || again.data != asked.data {
		t.Errorf("resumed, the stream sent %+v; want the question it missed, %+v", again, asked)
	}
	cancel()

	// The call, made again in the same session, is the same call going on:
	// the question it waits on is not asked again; the answer to the
	// question replayed (by the id it was asked under, before the restart)
	// reaches its turn, and the retry gets the call's result.
	retry := readEvents(s.do("POST", b.URL, strings.Replace(call, `"id":2`, `"id":3`, 1)).Body)
	var q struct {
		ID json.RawMessage `json:"id"`
	}
	if err := json.Unmarshal([]byte(asked.data), &q); err != nil {
		t.Fatal(err)
	}
	if res := s.do("POST", b.URL, `{"jsonrpc":"2.0","id":`+string(q.ID)+`,"result":{"action":"accept","content":{"name":"Ada"}}}`); res.StatusCode != http.StatusAccepted {
		t.Errorf("the answer to the replayed question: %d; want 202", res.StatusCode)
	}
	seen := through(t, retry, `"id":3`)
	for _, ev := range seen {
		if strings.Contains(ev.data, "elicitation/create") {
			t.Errorf("the retry was asked again: %s", ev.data)
		}
	}
	if done := seen[len(seen)-1]; !strings.Contains(done.data, `Hi, Ada`) {
		t.Errorf("the retry's result = %s; want the greeting with the answer", done.data)
	}
	// The call's own stream, resumed once more, ends with its result
	// under its id: a client that resumes misses nothing.
	req, _ = http.NewRequest("GET", b.URL, nil)
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Mcp-Session-Id", s.id)
	req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
	req.Header.Set("Last-Event-ID", asked.id)
	res, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if got := until(t, readEvents(res.Body), `"id":2`); !strings.Contains(got.data, `Hi, Ada`) {
		t.Errorf("the call's resumed stream ended with %s; want its result", got.data)
	}
	convs, err := svcB.Conversations(context.Background(), owner)
	if err != nil || len(convs) != 1 {
		t.Errorf("conversations = %d (%v); want the call's one", len(convs), err)
	}
}
