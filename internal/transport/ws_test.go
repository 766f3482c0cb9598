package transport

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
)

// wsClient is a program on the WebSocket binding of one conversation.
type wsClient struct {
	t    *testing.T
	conn *websocket.Conn
	ctx  context.Context
	// seen are the frames read so far, and taken those a test took.
	seen  []wsIn
	taken map[int]bool
}

type wsIn struct {
	Type   string          `json:"type"`
	ID     string          `json:"id"`
	Event  string          `json:"event"`
	Data   json.RawMessage `json:"data"`
	OK     *bool           `json:"ok"`
	Sent   string          `json:"sent"`
	Status int             `json:"status"`
	Error  string          `json:"error"`
	Fields json.RawMessage `json:"fields"`
}

// dialWS opens the conversation's WebSocket as b, with extra headers;
// it returns the response's status when the upgrade is refused.
func (b *browser) dialWS(conv, query string, header ...string) (*wsClient, int) {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	b.t.Cleanup(cancel)
	h := http.Header{}
	for i := 0; i+1 < len(header); i += 2 {
		h.Set(header[i], header[i+1])
	}
	url := "ws" + strings.TrimPrefix(b.app.srv.URL, "http") + "/c/" + conv + "/ws" + query
	conn, res, err := websocket.Dial(ctx, url, &websocket.DialOptions{HTTPClient: b.c, HTTPHeader: h})
	if err != nil {
		if res == nil {
			b.t.Fatal(err)
		}
		return nil, res.StatusCode
	}
	b.t.Cleanup(func() { conn.CloseNow() })
	return &wsClient{t: b.t, conn: conn, ctx: ctx, taken: map[int]bool{}}, http.StatusSwitchingProtocols
}

func (w *wsClient) send(frame string) {
	w.t.Helper()
	if err := w.conn.Write(w.ctx, websocket.MessageText, []byte(frame)); err != nil {
		w.t.Fatal(err)
	}
}

func (w *wsClient) next() wsIn {
	w.t.Helper()
	_, data, err := w.conn.Read(w.ctx)
	if err != nil {
		w.t.Fatalf("read: %v", err)
	}
	var f wsIn
	if err := json.Unmarshal(data, &f); err != nil {
		w.t.Fatalf("frame %s: %v", data, err)
	}
	return f
}

// until returns the first frame not taken yet that matches, reading more
// as needed: a command's result and the events it caused may come in
// either order.
func (w *wsClient) until(what string, match func(wsIn) bool) wsIn {
	w.t.Helper()
	for i := 0; ; i++ {
		if i == len(w.seen) {
			if len(w.seen) > 500 {
				w.t.Fatalf("no %s in 500 frames", what)
			}
			w.seen = append(w.seen, w.next())
		}
		if f := w.seen[i]; !w.taken[i] && match(f) {
			w.taken[i] = true
			return f
		}
	}
}

func (w *wsClient) result(id string) wsIn {
	w.t.Helper()
	return w.until("result "+id, func(f wsIn) bool { return f.Type == "result" && f.ID == id })
}

func (w *wsClient) event(name string) wsIn {
	w.t.Helper()
	return w.until(name, func(f wsIn) bool { return f.Type == "event" && f.Event == name })
}

// closedWith reads until the server closes, and returns its close code.
func (w *wsClient) closedWith() websocket.StatusCode {
	w.t.Helper()
	for {
		if _, _, err := w.conn.Read(w.ctx); err != nil {
			return websocket.CloseStatus(err)
		}
	}
}

// A program talks to a conversation over one WebSocket: its message
// starts a run whose events come back typed, a question is answered with
// a command, a bad answer is refused with its fields and changes nothing,
// and a reconnect from the last event id misses nothing.
func TestAConversationOverAWebSocket(t *testing.T) {
	a := newTestApp(t)
	b := a.browser(t)
	conv := b.newConversation("showcase")
	w, code := b.dialWS(conv, "")
	if code != http.StatusSwitchingProtocols {
		t.Fatalf("dial = %d", code)
	}
	w.send(`{"id":"1","type":"send","text":"where am i?","messageId":"m-1"}`)
	if r := w.result("1"); r.OK == nil || !*r.OK {
		t.Fatalf("send: %+v", r)
	}
	asked := w.event("elicit.asked")
	var q struct {
		Elicit  string `json:"elicit"`
		Request struct {
			Kind string `json:"kind"`
		} `json:"request"`
	}
	if err := json.Unmarshal(asked.Data, &q); err != nil || q.Request.Kind != "location" {
		t.Fatalf("asked %s (%v), want the location question", asked.Data, err)
	}
	w.send(`{"id":"2","type":"answer","elicit":"` + q.Elicit + `","action":"accept","content":{"lat":123,"lng":0}}`)
	if r := w.result("2"); r.OK == nil || *r.OK || r.Status != http.StatusUnprocessableEntity || !strings.Contains(string(r.Fields), "lat") {
		t.Fatalf("an answer off its schema: %+v, want 422 naming lat", r)
	}
	w.send(`{"id":"3","type":"answer","elicit":"` + q.Elicit + `","action":"accept","content":{"lat":38.72,"lng":-9.14}}`)
	if r := w.result("3"); r.OK == nil || !*r.OK {
		t.Fatalf("answer: %+v", r)
	}
	answered := w.event("elicit.answered")
	if strings.Contains(string(answered.Data), "123") {
		t.Fatalf("the refused answer was recorded: %s", answered.Data)
	}
	done := w.event("run.completed")
	w.send(`{"id":"4","type":"dance"}`)
	if r := w.result("4"); r.OK == nil || *r.OK || r.Status != http.StatusBadRequest || !strings.Contains(r.Error, "no command") {
		t.Fatalf("an unknown command: %+v, want 400 saying so", r)
	}

	// A program that dropped after the answer reconnects from its id.
	w2, _ := b.dialWS(conv, "?after="+answered.ID)
	first := w2.next()
	if first.Type != "event" || first.ID == answered.ID {
		t.Fatalf("first frame after a reconnect from %s: %+v", answered.ID, first)
	}
	again := w2.event("run.completed")
	if again.ID != done.ID {
		t.Fatalf("run.completed again as %s, want %s", again.ID, done.ID)
	}
}

// What the binding refuses it refuses before anything is recorded: a
// page of another site, another session's conversation, a binary frame,
// a frame past the size limit, a flood of commands; each with its own
// status or close code.
func TestAWebSocketRefusesBadInput(t *testing.T) {
	a := newTestApp(t)
	b := a.browser(t)
	conv := b.newConversation("showcase")
	if _, code := b.dialWS(conv, "", "Origin", "https://evil.example"); code != http.StatusForbidden {
		t.Errorf("another site's page = %d, want 403", code)
	}
	if _, code := a.browser(t).dialWS(conv, ""); code != http.StatusNotFound {
		t.Errorf("another session = %d, want 404", code)
	}
	if _, code := b.dialWS(conv, "", "Origin", a.srv.URL); code != http.StatusSwitchingProtocols {
		t.Errorf("the app's own page = %d, want the upgrade", code)
	}

	w, _ := b.dialWS(conv, "")
	if err := w.conn.Write(w.ctx, websocket.MessageBinary, []byte{1, 2, 3}); err != nil {
		t.Fatal(err)
	}
	if code := w.closedWith(); code != websocket.StatusUnsupportedData {
		t.Errorf("a binary frame closed with %v, want %v", code, websocket.StatusUnsupportedData)
	}

	w, _ = b.dialWS(conv, "")
	big := `{"id":"1","type":"send","text":"` + strings.Repeat("x", 8<<10) + `"}` // the test server takes 4 KiB
	if err := w.conn.Write(w.ctx, websocket.MessageText, []byte(big)); err != nil {
		t.Fatal(err)
	}
	if code := w.closedWith(); code != websocket.StatusMessageTooBig {
		t.Errorf("an oversized frame closed with %v, want %v", code, websocket.StatusMessageTooBig)
	}

	w, _ = b.dialWS(conv, "")
	var closed error
	for i := 0; i < 10*wsCommandBurst && closed == nil; i++ {
		closed = w.conn.Write(w.ctx, websocket.MessageText, []byte(`{"id":"f","type":"dance"}`))
	}
	if code := w.closedWith(); code != websocket.StatusPolicyViolation {
		t.Errorf("a flood closed with %v (%v), want %v", code, closed, websocket.StatusPolicyViolation)
	}

	// Nothing of all that was recorded: the conversation has no message.
	if v, err := a.svc.View(t.Context(), b.sessionID(), conv); err != nil || len(v.Items) != 0 {
		t.Errorf("after the refusals: %d items (%v), want none recorded", len(v.Items), err)
	}
}

// Feedback on a reply over the WebSocket is recorded as the page's form
// records it: on the event stream and in the export; what the form
// refuses the command refuses with the same status, recording nothing,
// and another session cannot give it.
func TestFeedbackOverAWebSocket(t *testing.T) {
	a := newTestApp(t)
	b := a.browser(t)
	conv, reply, msg := replied(t, a, b)
	before := a.nodeCount(t, conv)
	w, code := b.dialWS(conv, "")
	if code != http.StatusSwitchingProtocols {
		t.Fatalf("dial = %d", code)
	}
	for i, tc := range []struct {
		frame  string
		status int
		says   string
	}{
		{fmt.Sprintf(`"node":%d,"rating":"meh"`, reply), http.StatusBadRequest, "up, down or none"},
		{fmt.Sprintf(`"node":%d`, reply), http.StatusBadRequest, "up, down or none"},
		{fmt.Sprintf(`"node":%d,"rating":"down","comment":"%s"`, reply, strings.Repeat("x", 2001)), http.StatusBadRequest, "the limit is 2000"},
		{`"node":999999,"rating":"up"`, http.StatusNotFound, "There is no reply 999999"},
		{fmt.Sprintf(`"node":%d,"rating":"up"`, msg), http.StatusNotFound, fmt.Sprintf("There is no reply %d", msg)},
	} {
		id := fmt.Sprint("bad-", i)
		w.send(`{"id":"` + id + `","type":"feedback",` + tc.frame + `}`)
		if r := w.result(id); r.OK == nil || *r.OK || r.Status != tc.status || !strings.Contains(r.Error, tc.says) {
			t.Errorf("feedback {%s}: %+v, want %d saying %q", tc.frame, r, tc.status, tc.says)
		}
	}
	if got := a.nodeCount(t, conv); got != before {
		t.Fatalf("refused feedback changed the record: %d nodes, want %d", got, before)
	}

	w.send(fmt.Sprintf(`{"id":"1","type":"feedback","node":%d,"rating":"down","comment":"  too short  "}`, reply))
	if r := w.result("1"); r.OK == nil || !*r.OK {
		t.Fatalf("feedback: %+v", r)
	}
	given := w.event("feedback.given")
	var ev struct {
		Reply   int64  `json:"reply"`
		Rating  string `json:"rating"`
		Comment string `json:"comment"`
	}
	if err := json.Unmarshal(given.Data, &ev); err != nil || ev.Reply != reply || ev.Rating != "down" || ev.Comment != "too short" {
		t.Errorf("feedback.given = %s (%v); want down on reply %d, the comment trimmed", given.Data, err, reply)
	}
	code, body := b.do("GET", "/c/"+conv+"/feedback.json", "", "")
	if code != http.StatusOK || !strings.Contains(body, `"rating":"down"`) || !strings.Contains(body, `"comment":"too short"`) {
		t.Errorf("export after the command = %d %s; want the feedback", code, body)
	}
	// Another session's WebSocket is refused before any command.
	if _, code := a.browser(t).dialWS(conv, ""); code != http.StatusNotFound {
		t.Errorf("another session's WebSocket = %d, want 404", code)
	}
}
