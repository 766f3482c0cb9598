package transport

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/a-h/templ"
	"github.com/labstack/echo/v4"
	"github.com/starfederation/datastar-go/datastar"

	"github.com/sweatpants-go/sweatpants/elicit"
	"github.com/sweatpants-go/sweatpants/internal/lineend"
	"github.com/sweatpants-go/sweatpants/internal/pageview"
	"github.com/sweatpants-go/sweatpants/internal/tree"
	"github.com/sweatpants-go/sweatpants/internal/web/templates"
	"github.com/sweatpants-go/sweatpants/middleware"
)

// forged is text that, were a lone "\r" a line end the server did not
// expect, would add a datastar-patch-signals event to the page's stream.
const forged = "x\r\revent: datastar-patch-signals\rdata: signals {\"pwned\": true}\r\r"

// streamed runs write as a stream handler behind the app's middleware and
// returns what went on the wire.
func streamed(t testing.TB, write func(c echo.Context, sse *datastar.ServerSentEventGenerator) error) string {
	t.Helper()
	e := echo.New()
	rec := httptest.NewRecorder()
	c := e.NewContext(httptest.NewRequest(http.MethodGet, "/c/x/stream", nil), rec)
	err := guardLineEnds(func(c echo.Context) error { return write(c, newSSE(c)) })(c)
	if err != nil {
		t.Fatal(err)
	}
	return rec.Body.String()
}

// textPaths are the components through which text a user or a model wrote
// reaches a page: each renders s where it belongs.
var textPaths = map[string]func(s string) templ.Component{
	"message": func(s string) templ.Component {
		return templates.Item("c1", &pageview.Item{ID: 1, Kind: tree.UserMessage, Text: s})
	},
	"reply": func(s string) templ.Component {
		return templates.Item("c1", &pageview.Item{ID: 2, Kind: tree.AssistantMessage, Text: s})
	},
	"side question": func(s string) templ.Component {
		return templates.Item("c1", &pageview.Item{ID: 3, Kind: tree.SideQuestion, Text: s, Reply: s, Replied: true})
	},
	"streamed draft": func(s string) templ.Component {
		return templates.Status("c1", pageview.Status{Running: true, Draft: s, Progress: &middleware.Progress{Message: s, Fraction: 0.5}})
	},
	"answered form": func(s string) templ.Component {
		req := elicit.Request{ID: "7-1", Kind: "form", Message: s, Actions: []elicit.Action{elicit.Accept, elicit.Other},
			Schema: &elicit.Schema{Type: "object", Properties: map[string]*elicit.Schema{"destination": {Type: "string", Title: s}}}}
		return templates.Item("c1", &pageview.Item{ID: 4, Kind: tree.ElicitRequest, Elicit: &pageview.ElicitView{
			Request: req, State: pageview.Answered, Response: &elicit.Response{Action: elicit.Other, Text: s}}})
	},
	"rejected form": func(s string) templ.Component {
		req := elicit.Request{ID: "7-2", Kind: "form", Message: s, Actions: []elicit.Action{elicit.Accept},
			Schema: &elicit.Schema{Type: "object", Properties: map[string]*elicit.Schema{"destination": {Type: "string", Title: s}}}}
		return templates.Item("c1", &pageview.Item{ID: 5, Kind: tree.ElicitRequest, Elicit: &pageview.ElicitView{
			Request: req, State: pageview.Pending, Values: map[string][]string{"destination": {s}}, Problem: s, Position: 1, Queued: 1}})
	},
	"notice": func(s string) templ.Component { return templates.Notice(pageview.Notice{Text: s}) },
	"title":  func(s string) templ.Component { return templates.Title(tree.Conversation{ID: "c1", Title: s}) },
}

// FuzzStreamFraming checks the one boundary every stream passes: whatever a
// user or a model wrote, put through any text path, the stream parses (by
// the SSE spec's line rules, which end a line at a lone "\r" too) into
// exactly the event intended: one datastar-patch-elements event whose data
// is the rendered HTML with its line ends normalized. And a stream written
// around our patch helper, straight to the SDK, still cannot carry a forged
// event: every line it ends up with belongs to the event it was sent in.
func FuzzStreamFraming(f *testing.F) {
	for _, s := range []string{"", "hello", forged, "a\r\nb", "\r", "\n\n", "a\rdata: elements <b>x</b>\r", "\r\n\r\n", "end\r"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for name, path := range textPaths {
			var html bytes.Buffer
			if err := path(s).Render(context.Background(), &html); err != nil {
				t.Fatal(err)
			}
			wire := streamed(t, func(c echo.Context, sse *datastar.ServerSentEventGenerator) error {
				return patch(sse, path(s))
			})
			events := parseAllSSE(wire)
			want := "elements " + strings.ReplaceAll(lineend.Normalize(html.String()), "\n", "\nelements ")
			if len(events) != 1 || events[0].Type != "datastar-patch-elements" || events[0].ID != "" || events[0].Data() != want {
				t.Fatalf("%s: %q went out as %q, parsed as %+v; want one patch-elements event with data %q", name, s, wire, events, want)
			}
		}

		// The SDK's Send takes data lines as given, so a "\n" in one is the
		// caller's to split (its patch functions do); a "\r" is the guard's.
		raw := strings.ReplaceAll(s, "\n", "")
		wire := streamed(t, func(c echo.Context, sse *datastar.ServerSentEventGenerator) error {
			return sse.Send(datastar.EventTypePatchSignals, []string{"signals " + raw, "onlyIfMissing false"})
		})
		events := parseAllSSE(wire)
		if len(events) != 1 || events[0].Type != "datastar-patch-signals" {
			t.Fatalf("raw %q went out as %q, parsed as %+v; want one patch-signals event", s, wire, events)
		}
		for i, l := range events[0].Lines {
			key, _, _ := strings.Cut(l, " ")
			if want := "signals"; i == len(events[0].Lines)-1 {
				want = "onlyIfMissing"
				if key != want {
					t.Fatalf("raw %q: last line %q, want the onlyIfMissing line intact", s, l)
				}
			} else if key != want {
				t.Fatalf("raw %q: line %q of %q is not a signals line", s, l, wire)
			}
		}
	})
}

// TestSSEGuardLeavesOtherResponsesAlone: only event streams are rewritten.
func TestSSEGuardLeavesOtherResponsesAlone(t *testing.T) {
	e := echo.New()
	rec := httptest.NewRecorder()
	c := e.NewContext(httptest.NewRequest(http.MethodGet, "/", nil), rec)
	guardLineEnds(func(c echo.Context) error { return c.String(http.StatusOK, "a\r\nb\rc") })(c)
	if got := rec.Body.String(); got != "a\r\nb\rc" {
		t.Errorf("a plain response became %q", got)
	}
}

// TestSSEGuardKeepsItsPlaceAcrossWrites: a "\r\n" split between two writes
// is still one line end, and a "\r" at the end of a write continues the
// field in the next.
func TestSSEGuardKeepsItsPlaceAcrossWrites(t *testing.T) {
	rec := httptest.NewRecorder()
	rec.Header().Set("Content-Type", "text/event-stream")
	g := &sseGuard{ResponseWriter: rec}
	for _, w := range []string{"event: datastar-patch-elements\ndata: elements a\r", "\ndata: elements b\r", "c\n\n"} {
		g.Write([]byte(w))
	}
	want := "event: datastar-patch-elements\ndata: elements a\ndata: elements b\ndata: elements c\n\n"
	if got := rec.Body.String(); got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

// TestForgedEventsDoNotReachThePage sends text that forges an event, with a
// lone "\r", through every way a user puts text into a conversation — a
// message, a form answer, an answer in words, a side question, an edited
// message — and reads the conversation's stream and its tree inspector's
// stream the way a browser does. Only the events the server meant arrive,
// and the text is there, its line ends normalized.
func TestForgedEventsDoNotReachThePage(t *testing.T) {
	a := newTestApp(t)
	b := a.browser(t)
	conv := b.newConversation("concierge")
	quoted, _ := json.Marshal(forged)
	eid := b.pendingElicit(conv, strings.Trim(string(quoted), `"`))
	if code, body := b.do("POST", "/c/"+conv+"/messages", "application/json", `{"message":"what is the weather\r\revent: datastar-patch-signals\rdata: signals {}\r\r"}`, "Datastar-Request", "true"); code != 200 {
		t.Fatalf("side question = %d %s", code, body)
	}
	form := "_action=accept&destination=" + strings.NewReplacer("\r", "%0D", "\n", "%0A", " ", "+", "{", "%7B", "}", "%7D", `"`, "%22", ":", "%3A").Replace(forged) +
		"&travellers=2&cabin=economy&hotel=false"
	if code, body := b.do("POST", "/c/"+conv+"/elicits/"+eid, "application/x-www-form-urlencoded", form); code != 204 {
		t.Fatalf("form answer = %d %s", code, body)
	}
	waitForItem(t, b, conv, "assistant-message")
	msg := firstNode(t, a, conv, tree.UserMessage)
	if code, body := b.do("POST", "/c/"+conv+"/messages/"+msg+"/edit", "application/x-www-form-urlencoded",
		"message=edited%0D%0Devent%3A+datastar-patch-signals%0Ddata%3A+signals+%7B%7D%0D%0D"); code != 200 {
		t.Fatalf("edit = %d %s", code, body)
	}

	for path, end := range map[string]string{"/c/" + conv + "/stream": "</section>", "/c/" + conv + "/tree/stream": "</div>"} {
		first := firstEvent(t, b, path)
		if first.Type != "datastar-patch-elements" {
			t.Errorf("%s: first event is %q, want the page's patch", path, first.Type)
		}
		// A "\r" taken for a line end would have cut the render short,
		// and what followed would have been events of its own.
		if !strings.HasSuffix(first.Data(), end) {
			t.Errorf("%s: the first event is not the whole render; it ends %q", path, first.Data()[max(0, len(first.Data())-200):])
		}
		for _, l := range first.Lines {
			if key, _, _ := strings.Cut(l, " "); key != "elements" && key != "selector" && key != "mode" {
				t.Errorf("%s: the patch has a line %q that is not part of a patch", path, l)
			}
		}
		if !strings.Contains(first.Data(), "x\nelements \nelements event: datastar-patch-signals") &&
			!strings.Contains(first.Data(), "edited\nelements \nelements event: datastar-patch-signals") {
			t.Errorf("%s: the text is not shown with its line ends normalized:\n%s", path, first.Data())
		}
	}
}

// firstEvent opens a stream and returns its first event, as a browser
// parses it.
func firstEvent(t *testing.T, b *browser, path string) sseEvent {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, b.app.srv.URL+path, nil)
	res, err := b.c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		t.Fatalf("GET %s = %d", path, res.StatusCode)
	}
	var first sseEvent
	parseSSE(res.Body, func(e sseEvent) bool {
		first = e
		return false
	})
	return first
}

// waitForItem waits until the conversation's page shows an element with
// data-testid testID.
func waitForItem(t *testing.T, b *browser, conv, testID string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		_, page := b.do(http.MethodGet, "/c/"+conv, "", "")
		if strings.Contains(page, `data-testid="`+testID+`"`) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the page never showed %s:\n%s", testID, page)
		}
		time.Sleep(10 * time.Millisecond) // polling a condition, with a deadline
	}
}

// firstNode returns the id of the conversation's first node of kind.
func firstNode(t *testing.T, a *testApp, conv string, kind tree.Kind) string {
	t.Helper()
	nodes, err := a.db.Nodes(context.Background(), conv)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range nodes {
		if n.Kind == kind {
			return strconv.FormatInt(n.ID, 10)
		}
	}
	t.Fatalf("no %s node in %+v", kind, nodes)
	return ""
}

// FuzzSSEGuardSplitWrites: however an event is split between writes, the
// guard sends the same bytes as for one write.
func FuzzSSEGuardSplitWrites(f *testing.F) {
	f.Add("a\r\nb\rc", 3)
	f.Add("\r", 0)
	f.Add("x\r\revent: y\r\r", 2)
	f.Fuzz(func(t *testing.T, s string, cut int) {
		event := "event: datastar-patch-elements\ndata: elements " + s + "\n\n"
		if cut < 0 || cut > len(event) {
			return
		}
		write := func(pieces ...string) string {
			rec := httptest.NewRecorder()
			rec.Header().Set("Content-Type", "text/event-stream")
			g := &sseGuard{ResponseWriter: rec}
			for _, p := range pieces {
				g.Write([]byte(p))
			}
			return rec.Body.String()
		}
		whole, split := write(event), write(event[:cut], event[cut:])
		if whole != split {
			t.Fatalf("%q: one write sent %q, two writes cut at %d sent %q", event, whole, cut, split)
		}
		if strings.Contains(whole, "\r") {
			t.Fatalf("%q went out with a \\r: %q", event, whole)
		}
	})
}
