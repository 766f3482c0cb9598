package transport

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"github.com/sweatpants-go/sweatpants/internal/inspector"
	"github.com/sweatpants-go/sweatpants/internal/tree"
)

// openDebug opens the debug stream at path and returns the page its first
// event draws, with the stream it reads patches from.
func (b *browser) openDebug(path string) (*inspectorPage, *inspectorStream) {
	b.t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	b.t.Cleanup(cancel)
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, b.app.srv.URL+path, nil)
	res, err := b.c.Do(req)
	if err != nil {
		b.t.Fatal(err)
	}
	if res.StatusCode != http.StatusOK {
		b.t.Fatalf("GET %s = %d", path, res.StatusCode)
	}
	st := &inspectorStream{t: b.t, events: make(chan patchEvent)}
	go func() {
		defer res.Body.Close()
		parseSSE(res.Body, func(e sseEvent) bool {
			var ev patchEvent
			var elements []string
			for _, line := range e.Lines {
				ev.size += len(line)
				key, value, _ := strings.Cut(line, " ")
				switch key {
				case "selector":
					ev.selector = value
				case "mode":
					ev.mode = value
				case "elements":
					elements = append(elements, value)
				}
			}
			ev.elements = strings.Join(elements, "\n")
			select {
			case st.events <- ev:
				return true
			case <-ctx.Done():
				return false
			}
		})
	}()
	first := st.next()
	if first.selector != "" || !strings.HasPrefix(first.elements, `<div id="debug"`) {
		b.t.Fatalf("the first event is not the whole list: %.200s", first.elements)
	}
	pg := &inspectorPage{t: b.t, root: &html.Node{Type: html.ElementNode, Data: "body", DataAtom: atom.Body}}
	for _, n := range domParse(b.t, first.elements) {
		pg.root.AppendChild(n)
	}
	return pg, st
}

// freshDebug loads the debug page at path and returns its list.
func (b *browser) freshDebug(path string) string {
	b.t.Helper()
	code, body := b.do(http.MethodGet, path, "", "")
	if code != http.StatusOK {
		b.t.Fatalf("GET %s = %d %q", path, code, body)
	}
	doc, err := html.Parse(strings.NewReader(body))
	if err != nil {
		b.t.Fatal(err)
	}
	return domRender(b.t, domByID(doc, "debug"))
}

// sameDebug waits until the patched page shows what a fresh load of path
// shows, and returns how many of the patches it took drew the whole list.
func (b *browser) sameDebug(t *testing.T, path string, pg *inspectorPage, st *inspectorStream) (whole int) {
	t.Helper()
	st.t, pg.t = t, t
	for fresh := b.freshDebug(path); domRender(t, domByID(pg.root, "debug")) != fresh; fresh = b.freshDebug(path) {
		ev, ok := st.nextWithin(10 * time.Second)
		if !ok {
			t.Fatalf("the patched debug page %s differs from a fresh one:\n%s", path, domDifference(domRender(t, domByID(pg.root, "debug")), fresh))
		}
		if strings.HasPrefix(ev.elements, `<div id="debug"`) {
			whole++
		}
		pg.apply(ev)
	}
	return whole
}

// Whatever the conversations of a session do — a first call, a question
// answered, a new conversation, a side question, an edit — the patched
// debug pages, of the session and of one conversation, filtered or not,
// are the ones a fresh load draws; and a change of one turn is sent as
// that turn, not the whole page.
func TestThePatchedDebugPageIsTheOneAFreshLoadDraws(t *testing.T) {
	a := newTestApp(t)
	b := a.browser(t)
	trip := `{"destination":"Oslo","travellers":2,"cabin":"economy","hotel":false}`
	first := b.newConversation("concierge")
	type viewer struct {
		path  string
		pg    *inspectorPage
		st    *inspectorStream
		whole int // the patches that drew the whole list
	}
	var viewers []*viewer
	for _, path := range []string{"/debug", "/c/" + first + "/debug", "/debug?only=failed"} {
		v := &viewer{path: path}
		v.pg, v.st = b.openDebug(streamPath(path))
		viewers = append(viewers, v)
	}
	var second string
	for _, step := range []struct {
		name string
		do   func(t *testing.T)
	}{
		{"a first call", func(t *testing.T) {
			b.command(t, "/c/"+first+"/messages", "application/json", `{"message":"Plan a trip to Oslo"}`)
		}},
		{"the answer and the reply", func(t *testing.T) { b.acceptPending(t, first, trip) }},
		{"another turn", func(t *testing.T) {
			b.command(t, "/c/"+first+"/messages", "application/json", `{"message":"Plan a trip to Riga"}`)
		}},
		{"a side question", func(t *testing.T) {
			b.command(t, "/c/"+first+"/messages", "application/json", `{"message":"what is the capital of France?"}`)
		}},
		{"a new conversation", func(t *testing.T) {
			second = b.newConversation("concierge")
			b.command(t, "/c/"+second+"/messages", "application/json", `{"message":"Plan a trip to Bern"}`)
		}},
		{"an edit in the first", func(t *testing.T) {
			in, err := inspector.Inspect(t.Context(), a.svc, b.sessionID(), first, inspector.Query{})
			if err != nil {
				t.Fatal(err)
			}
			var msg int64
			for _, n := range in.Path {
				if n.Kind == tree.UserMessage && strings.Contains(string(n.Payload), "Riga") {
					msg = n.ID
				}
			}
			b.command(t, "/c/"+first+"/messages/"+strconv.FormatInt(msg, 10)+"/edit", "application/x-www-form-urlencoded", "message=Plan+a+trip+to+Porto")
		}},
	} {
		t.Run(step.name, func(t *testing.T) {
			b.t = t
			step.do(t)
			for _, conv := range []string{first, second} {
				b.settled(t, conv)
			}
			for _, v := range viewers {
				v.whole += b.sameDebug(t, v.path, v.pg, v.st)
			}
		})
	}
	b.t = t
	// Only a new conversation draws the session's page whole again.
	for i, want := range []int{1, 0, 1} {
		if v := viewers[i]; v.whole != want {
			t.Errorf("%s was drawn whole %d times after the first, want %d", v.path, v.whole, want)
		}
	}
	// The session's page has both conversations, the one conversation's
	// page only its own.
	pg := viewers[0].pg
	if !pg.has(`[data-conversation=`+second+`]`, "") || !pg.has(`[data-conversation=`+first+`]`, "") {
		t.Error("the session's page does not show both conversations")
	}
	if viewers[1].pg.has(`[data-conversation=`+second+`]`, "") {
		t.Error("one conversation's page shows another")
	}
}

// settled waits until conversation conv (if any) has settled: its turn
// ended or waits for an answer.
func (b *browser) settled(t *testing.T, conv string) {
	t.Helper()
	if conv == "" {
		return
	}
	for deadline := time.Now().Add(10 * time.Second); ; {
		v, err := b.app.svc.View(t.Context(), b.sessionID(), conv)
		if err != nil {
			t.Fatal(err)
		}
		if !v.Status.Running || v.Status.Waiting {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("conversation %s did not settle", conv)
		}
		time.Sleep(5 * time.Millisecond) // polling for a condition, with a deadline
	}
}

// streamPath is where the debug page at path follows.
func streamPath(path string) string {
	page, query, _ := strings.Cut(path, "?")
	if query != "" {
		query = "?" + query
	}
	return page + "/stream" + query
}

// The debug pages are the session's: another browser gets 404 for a
// conversation's page and its stream and sees nothing of it on its own
// page; what users and models wrote is shown escaped; an unknown filter is
// refused.
func TestTheDebugPageIsTheSessionsAndEscaped(t *testing.T) {
	a := newTestApp(t)
	b := a.browser(t)
	conv := b.newConversation("concierge")
	b.command(t, "/c/"+conv+"/messages", "application/json", `{"message":"Plan a trip to <script>alert(1)</script>"}`)
	page := ""
	for deadline := time.Now().Add(10 * time.Second); !strings.Contains(page, `data-testid="debug-call"`); {
		if time.Now().After(deadline) {
			t.Fatalf("no call on the debug page:\n%s", page)
		}
		_, page = b.do(http.MethodGet, "/c/"+conv+"/debug", "", "")
		time.Sleep(5 * time.Millisecond) // polling the page for a condition, with a deadline
	}
	if strings.Contains(page, "<script>alert") || !strings.Contains(page, "&lt;script&gt;alert(1)&lt;/script&gt;") {
		t.Error("the user's text is not escaped on the debug page")
	}
	if !strings.Contains(page, `data-testid="call-tokens"`) || !strings.Contains(page, `data-testid="call-latency"`) {
		t.Error("the call shows no tokens or latency")
	}

	other := a.browser(t)
	other.newConversation("survey") // a session of its own
	for _, path := range []string{"/c/" + conv + "/debug", "/c/" + conv + "/debug/stream", "/debug?conversation=" + conv, "/debug/stream?conversation=" + conv} {
		if code, body := other.do(http.MethodGet, path, "", ""); code != http.StatusNotFound {
			t.Errorf("another session's GET %s = %d %q, want 404", path, code, body)
		}
	}
	if code, body := other.do(http.MethodGet, "/debug", "", ""); code != http.StatusOK || strings.Contains(body, conv) {
		t.Errorf("another session's GET /debug = %d, shows the conversation %v; want 200 without it", code, strings.Contains(body, conv))
	}
	stranger := a.browser(t) // no session at all
	if code, body := stranger.do(http.MethodGet, "/debug", "", ""); code != http.StatusOK || strings.Contains(body, conv) || strings.Contains(body, "/debug/stream") {
		t.Errorf("GET /debug without a session = %d, shows the conversation %v, opens a stream %v; want 200, neither", code, strings.Contains(body, conv), strings.Contains(body, "/debug/stream"))
	}
	if code, _ := stranger.do(http.MethodGet, "/debug/stream", "", ""); code != http.StatusNotFound {
		t.Errorf("GET /debug/stream without a session = %d, want 404", code)
	}
	if code, body := b.do(http.MethodGet, "/debug?only=<b>x", "", ""); code != http.StatusBadRequest || strings.Contains(body, "<b>") {
		t.Errorf("GET /debug?only=<b>x = %d %q, want 400 that does not repeat it", code, body)
	}
}
