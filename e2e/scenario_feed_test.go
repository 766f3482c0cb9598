package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/coder/websocket"
)

// The scenario over the event stream and the page's POST commands, as a
// script sends them.
func TestScenarioOverSSEAndPOST(t *testing.T) {
	t.Parallel()
	a := startApp(t)
	runScenario(t, &feedDriver{t: t, a: a, cl: newEventsClient(t, a), link: &sseLink{}})
}

// The scenario over the WebSocket binding: events and commands on one
// connection. Then, on the same server, what the binding refuses: each
// refusal says why with its status or close code, and records nothing.
func TestScenarioOverWebSocket(t *testing.T) {
	t.Parallel()
	a := startApp(t)
	d := &feedDriver{t: t, a: a, cl: newEventsClient(t, a), link: &wsLink{}}
	runScenario(t, d)
	webSocketRefusals(t, d)
}

// webSocketRefusals sends the binary what the WebSocket binding refuses,
// on d's conversation, and then checks nothing of it was recorded: the
// next event after the last one d read is the message sent after them.
func webSocketRefusals(t *testing.T, d *feedDriver) {
	ctx, cancel := context.WithTimeout(context.Background(), patience(20*time.Second))
	defer cancel()
	if _, code := d.dial(ctx, "", d.cl.http, http.Header{"Origin": {"https://evil.example"}}); code != http.StatusForbidden {
		t.Errorf("a page of another site = %d, want 403", code)
	}
	if _, code := d.dial(ctx, "", newEventsClient(t, d.a).http, nil); code != http.StatusNotFound {
		t.Errorf("another session = %d, want 404", code)
	}
	closes := []struct {
		what   string
		frames func(*websocket.Conn) error
		want   websocket.StatusCode
	}{
		{"a binary frame", func(c *websocket.Conn) error {
			return c.Write(ctx, websocket.MessageBinary, []byte(`{"id":"1","type":"send","text":"binary"}`))
		}, websocket.StatusUnsupportedData},
		{"a frame over 64 KiB", func(c *websocket.Conn) error {
			big := `{"id":"1","type":"send","text":"` + strings.Repeat("x", 65<<10) + `"}`
			return c.Write(ctx, websocket.MessageText, []byte(big))
		}, websocket.StatusMessageTooBig},
		{"a flood of commands", func(c *websocket.Conn) error {
			for i := range 100 {
				// Commands that would record nothing even if run: the
				// flood is cut off for its pace alone.
				if err := c.Write(ctx, websocket.MessageText, fmt.Appendf(nil, `{"id":"%d","type":"dance"}`, i)); err != nil {
					return nil // closed already
				}
			}
			return nil
		}, websocket.StatusPolicyViolation},
	}
	for _, c := range closes {
		conn, code := d.dial(ctx, "?after="+url.QueryEscape(d.last), d.cl.http, nil)
		if conn == nil {
			t.Fatalf("dial for %s = %d", c.what, code)
		}
		if err := c.frames(conn); err != nil {
			t.Fatalf("%s: %v", c.what, err)
		}
		var err error
		for err == nil {
			_, _, err = conn.Read(ctx)
		}
		if got := websocket.CloseStatus(err); got != c.want {
			t.Errorf("%s closed the connection with %v (%v), want %v", c.what, got, err, c.want)
		}
		conn.CloseNow()
	}

	d.link.close()
	d.events, d.ended = d.link.open(d, d.last)
	d.send("Plan a trip to Rome")
	if e := d.next("the message after the refusals"); e.Type != "run.started" || e.Data["text"] != "Plan a trip to Rome" {
		t.Fatalf("the first event after the refusals is %s %s, want the next message's run.started:%s", e.Type, e.Raw, describeEvents(d.seen))
	}
}

// feedDriver drives the scenario over a transport of typed events (the
// event stream, the WebSocket): what the two share is reading the events;
// how commands travel is the link's.
type feedDriver struct {
	t    *testing.T
	a    *app
	cl   *eventsClient
	link feedLink
	conv string

	events <-chan streamEvent
	ended  <-chan error
	last   string // the id of the last event read, to resume from
	// seen are the events read, across connections, each once by id.
	seen    []streamEvent
	seenIDs map[string]bool
	// lastRun is the message of the last run that was not a side question.
	lastRun int64
}

// feedLink is how one transport carries a conversation's events out and
// its commands in.
type feedLink interface {
	// open connects to conversation conv's events after the event id
	// after ("" from the start); the events come on the first channel until
	// the connection ends, which the second says.
	open(d *feedDriver, after string) (<-chan streamEvent, <-chan error)
	// close drops the connection.
	close()
	// The commands, each failing the test when refused.
	send(d *feedDriver, text string) string
	answer(d *feedDriver, elicit string, content any)
	stop(d *feedDriver)
	edit(d *feedDriver, node int64, text string)
}

func (d *feedDriver) start(agent string) {
	d.t.Helper()
	// POST /c without a message makes the conversation alone; the first
	// message goes over the transport.
	res, err := d.cl.http.PostForm(d.cl.base+"/c", url.Values{"agent": {agent}})
	if err != nil {
		d.t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusSeeOther {
		d.t.Fatalf("POST /c = %d, want 303", res.StatusCode)
	}
	d.conv = strings.TrimPrefix(res.Header.Get("Location"), "/c/")
	d.seenIDs = map[string]bool{}
	d.events, d.ended = d.link.open(d, "")
}

func (d *feedDriver) send(text string) string { d.t.Helper(); return d.link.send(d, text) }
func (d *feedDriver) stop()                   { d.t.Helper(); d.link.stop(d) }

func (d *feedDriver) edit(text string) {
	d.t.Helper()
	d.link.edit(d, d.lastRun, text)
}

func (d *feedDriver) answer(q asked, a tripAnswer) {
	d.t.Helper()
	d.link.answer(d, q.ID, map[string]any{"destination": a.Destination, "travellers": a.Travellers, "cabin": a.Cabin, "hotel": a.Hotel})
}

// next reads the next event, failing the test after a while without one.
func (d *feedDriver) next(what string) streamEvent {
	d.t.Helper()
	select {
	case e := <-d.events:
		d.last = e.ID
		if !d.seenIDs[e.ID] {
			d.seenIDs[e.ID] = true
			d.seen = append(d.seen, e)
		}
		if e.Type == "run.started" && e.Data["aside"] != true {
			d.lastRun = int64(e.Data["node"].(float64))
		}
		return e
	case err := <-d.ended:
		d.t.Fatalf("the connection ended (%v) before %s:%s", err, what, describeEvents(d.seen))
	case <-time.After(patience(20 * time.Second)):
		d.t.Fatalf("no %s within 20s:%s", what, describeEvents(d.seen))
	}
	panic("unreachable")
}

func (d *feedDriver) question() asked {
	d.t.Helper()
	for {
		if e := d.next("a question"); e.Type == "elicit.asked" {
			req, _ := e.Data["request"].(map[string]any)
			msg, _ := req["message"].(string)
			return asked{ID: e.Data["elicit"].(string), Message: msg}
		}
	}
}

func (d *feedDriver) end() runEnd {
	d.t.Helper()
	for {
		if e := d.next("a run's end"); e.Type == "run.completed" {
			status, _ := e.Data["status"].(string)
			text, _ := e.Data["text"].(string)
			return runEnd{Status: status, Text: text, Aside: e.Data["aside"] == true}
		}
	}
}

func (d *feedDriver) crash() {
	d.t.Helper()
	d.a.stop(syscall.SIGKILL)
	d.link.close()
}

// restart starts the server again and reconnects from the last event read,
// as a client that lost its connection does.
func (d *feedDriver) restart() {
	d.t.Helper()
	d.a.start()
	d.events, d.ended = d.link.open(d, d.last)
}

func (d *feedDriver) replies(text string) int {
	n := 0
	for _, e := range d.seen {
		if s, _ := e.Data["text"].(string); e.Type == "run.completed" && e.Data["status"] == "replied" && strings.Contains(s, text) {
			n++
		}
	}
	return n
}

// sseLink is the event stream (GET /c/:id/events) with the page's POST
// commands sent as JSON, as a script sends them.
type sseLink struct{ stream *openStream }

func (l *sseLink) open(d *feedDriver, after string) (<-chan streamEvent, <-chan error) {
	l.stream = d.cl.open(d.conv, after)
	return l.stream.events, l.stream.ended
}

func (l *sseLink) close() { l.stream.close() }

// post posts body as JSON (a form when it is url.Values) to the
// conversation's path and returns the answer, failing the test unless its
// status is want.
func (l *sseLink) post(d *feedDriver, path string, body any, want int) []byte {
	d.t.Helper()
	var r io.Reader
	ct := "application/json"
	if form, ok := body.(url.Values); ok {
		r, ct = strings.NewReader(form.Encode()), "application/x-www-form-urlencoded"
	} else if body != nil {
		b, _ := json.Marshal(body)
		r = bytes.NewReader(b)
	}
	res, err := d.cl.http.Post(d.cl.base+"/c/"+d.conv+path, ct, r)
	if err != nil {
		d.t.Fatal(err)
	}
	out, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != want {
		d.t.Fatalf("POST %s = %d %s, want %d", path, res.StatusCode, out, want)
	}
	return out
}

func (l *sseLink) send(d *feedDriver, text string) string {
	d.t.Helper()
	body, _ := json.Marshal(map[string]string{"message": text})
	res, err := d.cl.http.Post(d.cl.base+"/c/"+d.conv+"/messages", "application/json", bytes.NewReader(body))
	if err != nil {
		d.t.Fatal(err)
	}
	out, _ := io.ReadAll(res.Body)
	res.Body.Close()
	switch res.StatusCode {
	case http.StatusNoContent:
		return ""
	case http.StatusOK:
		var sent sentAnswer
		if err := json.Unmarshal(out, &sent); err != nil {
			d.t.Fatalf("send answered %s: %v", out, err)
		}
		return sent.Sent
	}
	d.t.Fatalf("send %q = %d %s", text, res.StatusCode, out)
	return ""
}

// sentAnswer is what POST /c/:id/messages tells a script a message did
// when it did more than start a turn.
type sentAnswer struct {
	Sent string `json:"sent"`
	Say  string `json:"say"`
}

func (l *sseLink) answer(d *feedDriver, elicit string, content any) {
	d.t.Helper()
	l.post(d, "/elicits/"+elicit, map[string]any{"action": "accept", "content": content}, http.StatusNoContent)
}

func (l *sseLink) stop(d *feedDriver) {
	d.t.Helper()
	l.post(d, "/stop", nil, http.StatusNoContent)
}

func (l *sseLink) edit(d *feedDriver, node int64, text string) {
	d.t.Helper()
	l.post(d, fmt.Sprintf("/messages/%d/edit", node), url.Values{"message": {text}}, http.StatusOK)
}

// wsLink is the WebSocket binding (GET /c/:id/ws): event frames out,
// commands in, each answered by a result frame with the command's id.
type wsLink struct {
	conn    *websocket.Conn
	cancel  context.CancelFunc
	results chan wsResult
	ids     atomic.Int64
}

// wsFrame is a frame the server sends: an event or a command's result.
type wsFrame struct {
	Type   string          `json:"type"`
	ID     string          `json:"id"`
	Event  string          `json:"event"`
	Data   json.RawMessage `json:"data"`
	OK     *bool           `json:"ok"`
	Sent   string          `json:"sent"`
	Status int             `json:"status"`
	Error  string          `json:"error"`
}

type wsResult = wsFrame

// dial opens the conversation's WebSocket with the client's cookies and
// the headers given; it returns the refusal's status when the server
// refuses the upgrade.
func (d *feedDriver) dial(ctx context.Context, query string, client *http.Client, header http.Header) (*websocket.Conn, int) {
	d.t.Helper()
	u := "ws" + strings.TrimPrefix(d.cl.base, "http") + "/c/" + d.conv + "/ws" + query
	conn, res, err := websocket.Dial(ctx, u, &websocket.DialOptions{HTTPClient: client, HTTPHeader: header})
	if err != nil {
		if res == nil {
			d.t.Fatalf("dial %s: %v", u, err)
		}
		return nil, res.StatusCode
	}
	return conn, http.StatusSwitchingProtocols
}

func (l *wsLink) open(d *feedDriver, after string) (<-chan streamEvent, <-chan error) {
	d.t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	q := ""
	if after != "" {
		q = "?after=" + url.QueryEscape(after)
	}
	conn, code := d.dial(ctx, q, d.cl.http, nil)
	if conn == nil {
		cancel()
		d.t.Fatalf("dial the WebSocket = %d, want the upgrade", code)
	}
	conn.SetReadLimit(1 << 20)
	l.conn, l.cancel, l.results = conn, cancel, make(chan wsResult, 16)
	events, ended := make(chan streamEvent, 1024), make(chan error, 1)
	results := l.results
	go func() {
		for {
			_, data, err := conn.Read(ctx)
			if err != nil {
				ended <- err
				return
			}
			var f wsFrame
			if err := json.Unmarshal(data, &f); err != nil {
				ended <- fmt.Errorf("frame %s: %w", data, err)
				return
			}
			if f.Type == "result" {
				results <- f
				continue
			}
			e := streamEvent{Type: f.Event, ID: f.ID, Raw: string(f.Data)}
			if err := json.Unmarshal(f.Data, &e.Data); err != nil {
				ended <- fmt.Errorf("event %s: %w", data, err)
				return
			}
			events <- e
		}
	}()
	d.t.Cleanup(l.close)
	return events, ended
}

func (l *wsLink) close() {
	l.cancel()
	l.conn.CloseNow()
}

// command sends cmd with an id of its own and waits for its result,
// failing the test when it is refused.
func (l *wsLink) command(d *feedDriver, cmd map[string]any) wsResult {
	d.t.Helper()
	id := fmt.Sprint(l.ids.Add(1))
	cmd["id"] = id
	b, _ := json.Marshal(cmd)
	ctx, cancel := context.WithTimeout(context.Background(), patience(20*time.Second))
	defer cancel()
	if err := l.conn.Write(ctx, websocket.MessageText, b); err != nil {
		d.t.Fatalf("write %s: %v", b, err)
	}
	select {
	case r := <-l.results:
		if r.ID != id || r.OK == nil || !*r.OK {
			d.t.Fatalf("command %s: result %+v", b, r)
		}
		return r
	case <-ctx.Done():
		d.t.Fatalf("no result for %s within 20s", b)
	}
	panic("unreachable")
}

func (l *wsLink) send(d *feedDriver, text string) string {
	d.t.Helper()
	return l.command(d, map[string]any{"type": "send", "text": text}).Sent
}

func (l *wsLink) answer(d *feedDriver, elicit string, content any) {
	d.t.Helper()
	l.command(d, map[string]any{"type": "answer", "elicit": elicit, "action": "accept", "content": content})
}

func (l *wsLink) stop(d *feedDriver) {
	d.t.Helper()
	l.command(d, map[string]any{"type": "stop"})
}

func (l *wsLink) edit(d *feedDriver, node int64, text string) {
	d.t.Helper()
	l.command(d, map[string]any{"type": "edit", "node": node, "text": text})
}
