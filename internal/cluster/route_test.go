package cluster

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// site is a node serving HTTP as the application will: its handler behind
// the node's Route. /c/ID/echo answers who served it and what it saw;
// /c/ID/stream sends one event, a second when the test says so, and
// reports why it ended; /c/ID/events sends one event, with this node's id
// as its id, saying which event it follows (Last-Event-ID). A frozen site's
// handler answers nothing until its request ends, as a stopped process
// would, and says when it was reached on entered.
type site struct {
	node    *Node
	srv     *httptest.Server
	served  atomic.Int32
	step    chan struct{}
	ended   chan error
	frozen  atomic.Bool
	entered chan struct{}
	thaw    chan struct{} // closed when the test ends
}

// freeze makes s answer nothing until the test ends. Call it once the
// test's sites are started: their Close waits for the handlers, the
// forwarding ones' included, so s thaws before any closes.
func (s *site) freeze(t *testing.T) {
	s.frozen.Store(true)
	t.Cleanup(func() { close(s.thaw) })
}

func startSite(t *testing.T, url string) *site {
	t.Helper()
	return startSiteWith(t, url, Options{})
}

// startSiteWith starts a site whose node joins with opts (its URL aside).
func startSiteWith(t *testing.T, url string, opts Options) *site {
	t.Helper()
	s := &site{step: make(chan struct{}), ended: make(chan error, 1), entered: make(chan struct{}, 8), thaw: make(chan struct{})}
	s.srv = httptest.NewUnstartedServer(nil)
	opts.URL = "http://" + s.srv.Listener.Addr().String()
	s.node = join(t, url, opts)
	s.srv.Config.Handler = s.node.Route(conversationOf)(http.HandlerFunc(s.handle))
	s.srv.Start()
	t.Cleanup(s.srv.Close)
	return s
}

// conversationOf is the ID of a path /c/ID/….
func conversationOf(r *http.Request) string {
	parts := strings.Split(r.URL.Path, "/")
	if len(parts) < 3 || parts[1] != "c" {
		return ""
	}
	return parts[2]
}

func (s *site) handle(w http.ResponseWriter, r *http.Request) {
	s.served.Add(1)
	if s.frozen.Load() {
		s.entered <- struct{}{}
		<-s.thaw // as a stopped process, whether or not its request ended
		return
	}
	switch {
	case strings.HasSuffix(r.URL.Path, "/echo"):
		body, _ := io.ReadAll(r.Body)
		cookie, _ := r.Cookie("session")
		var session string
		if cookie != nil {
			session = cookie.Value
		}
		fmt.Fprintf(w, "%s|%s|%s|%s|%s", s.node.ID(), body, r.Host, session, r.Header.Get(ForwardedHeader))
	case strings.HasSuffix(r.URL.Path, "/forwarded"):
		fmt.Fprintf(w, "%s|%s|%s", r.Header.Get("X-Forwarded-Proto"), r.Header.Get("X-Forwarded-Host"), r.Header.Get("X-Forwarded-For"))
	case strings.HasSuffix(r.URL.Path, "/events"):
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprintf(w, "id: %s\ndata: %s after %s\n\n", s.node.ID(), s.node.ID(), r.Header.Get("Last-Event-ID"))
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	case strings.HasSuffix(r.URL.Path, "/stream"):
		w.Header().Set("Content-Type", r.URL.Query().Get("type"))
		fmt.Fprint(w, "data: one\n\n")
		w.(http.Flusher).Flush()
		select {
		case <-s.step:
			fmt.Fprint(w, "data: two\n\n")
		case <-r.Context().Done():
			s.ended <- context.Cause(r.Context())
		}
	}
}

// do sends a request to s and returns the response.
func (s *site) do(t *testing.T, method, path, body string, header http.Header) *http.Response {
	t.Helper()
	req, err := http.NewRequest(method, s.srv.URL+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Host = "chat.example"
	req.AddCookie(&http.Cookie{Name: "session", Value: "s1"})
	for k, v := range header {
		req.Header[k] = v
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	t.Cleanup(func() { res.Body.Close() })
	return res
}

// text is a response's status and body.
func text(t *testing.T, res *http.Response) (int, string) {
	t.Helper()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return res.StatusCode, string(b)
}

// event reads the next server-sent event's data line.
func event(t *testing.T, r *bufio.Reader) string {
	t.Helper()
	type line struct {
		s   string
		err error
	}
	got := make(chan line, 1)
	go func() {
		for {
			s, err := r.ReadString('\n')
			if err != nil || strings.HasPrefix(s, "data: ") {
				got <- line{strings.TrimSpace(s), err}
				return
			}
		}
	}()
	select {
	case l := <-got:
		if l.err != nil {
			t.Fatalf("read event: %v", l.err)
		}
		return l.s
	case <-time.After(wait):
		t.Fatalf("no event after %v", wait)
		return ""
	}
}

// TestARequestForAnotherNodesConversationIsServedByIt: the owner serves a
// request sent to another node as the browser sent it (its Host, its
// cookie), marked as forwarded by that node, and a stream flows through
// event by event.
func TestARequestForAnotherNodesConversationIsServedByIt(t *testing.T) {
	url := newCluster(t)
	a, b := startSite(t, url), startSite(t, url)
	hold(t, a.node, "c1")

	status, body := text(t, b.do(t, "POST", "/c/c1/echo", "hello", nil))
	want := strings.Join([]string{a.node.ID(), "hello", "chat.example", "s1", b.node.ID()}, "|")
	if status != http.StatusOK || body != want {
		t.Errorf("POST to b = %d %q, want 200 %q", status, body, want)
	}

	// Server-sent events, and any other response written bit by bit.
	for _, typ := range []string{"text/event-stream", "text/plain"} {
		t.Run(typ, func(t *testing.T) {
			res := b.do(t, "GET", "/c/c1/stream?type="+typ, "", nil)
			events := bufio.NewReader(res.Body)
			// a's handler sends its second event only after the first has
			// come through b: a proxy that buffered would never deliver it.
			if got := event(t, events); got != "data: one" {
				t.Errorf("first event %q, want data: one", got)
			}
			a.step <- struct{}{}
			if got := event(t, events); got != "data: two" {
				t.Errorf("second event %q, want data: two", got)
			}
		})
	}
	if got := b.served.Load(); got != 0 {
		t.Errorf("b's handler served %d requests, want 0", got)
	}
}

// A request forwarded to the owner keeps what a load balancer in front
// said of the browser's connection (HTTPS, the host it asked for), and
// names the browser after the load balancer, so that the owner, trusting
// both as proxies, sees the browser.
func TestAForwardedRequestKeepsWhatTheLoadBalancerSaid(t *testing.T) {
	url := newCluster(t)
	a, b := startSite(t, url), startSite(t, url)
	hold(t, a.node, "c1")
	status, body := text(t, b.do(t, "GET", "/c/c1/forwarded", "", http.Header{
		"X-Forwarded-Proto": {"https"}, "X-Forwarded-Host": {"chat.example"}, "X-Forwarded-For": {"203.0.113.7"}}))
	if want := "https|chat.example|203.0.113.7, 127.0.0.1"; status != http.StatusOK || body != want {
		t.Errorf("the owner saw %d %q, want %q", status, body, want)
	}
}

// TestAForwardedRequestIsNotForwardedAgain: a node sent a forwarded
// request for a conversation another node holds answers 503 with
// Retry-After instead of forwarding it on; one for a conversation no one
// holds it takes and serves.
func TestAForwardedRequestIsNotForwardedAgain(t *testing.T) {
	url := newCluster(t)
	a, b := startSite(t, url), startSite(t, url)
	hold(t, a.node, "c1")
	forwarded := http.Header{ForwardedHeader: {"some-node"}}

	res := b.do(t, "POST", "/c/c1/echo", "hello", forwarded)
	status, body := text(t, res)
	if status != http.StatusServiceUnavailable || res.Header.Get("Retry-After") == "" || !strings.Contains(body, "already forwarded") {
		t.Errorf("forwarded POST for a's conversation = %d (Retry-After %q) %q, want 503 with Retry-After saying it was forwarded already",
			status, res.Header.Get("Retry-After"), body)
	}
	if got := a.served.Load() + b.served.Load(); got != 0 {
		t.Errorf("handlers served %d requests, want 0", got)
	}

	status, body = text(t, b.do(t, "POST", "/c/c2/echo", "hello", forwarded))
	if status != http.StatusOK || !strings.HasPrefix(body, b.node.ID()+"|hello") {
		t.Errorf("forwarded POST for no one's conversation = %d %q, want served by b", status, body)
	}
}

// TestARequestForADeadOwnersConversationIsServedHere: when the owner was
// killed, the node forwarding to it finds its connection refused, sees it
// dead, takes the conversation over and serves the request, body and all.
func TestARequestForADeadOwnersConversationIsServedHere(t *testing.T) {
	url := newCluster(t)
	a, b := startSite(t, url), startSite(t, url)
	hold(t, a.node, "c1")
	a.srv.Close()
	a.node.crash()

	status, body := text(t, b.do(t, "POST", "/c/c1/echo", "hello", nil))
	if status != http.StatusOK || !strings.HasPrefix(body, b.node.ID()+"|hello|chat.example|s1|") {
		t.Errorf("POST to b for a dead node's conversation = %d %q, want served by b with its body", status, body)
	}
}

// TestAStreamEndsWhenItsNodeLosesTheConversation: a node cut off from the
// database stops serving the conversation: its open stream ends (its
// context's cause is ErrLost), so the browser reconnects to the owner.
func TestAStreamEndsWhenItsNodeLosesTheConversation(t *testing.T) {
	url := newCluster(t)
	a := startSite(t, url)
	res := a.do(t, "GET", "/c/c1/stream?type=text/event-stream", "", nil)
	events := bufio.NewReader(res.Body)
	if got := event(t, events); got != "data: one" {
		t.Fatalf("first event %q, want data: one", got)
	}

	terminate(t, a.node)
	select {
	case cause := <-a.ended:
		if !errors.Is(cause, ErrLost) {
			t.Errorf("the stream ended because %v, want ErrLost", cause)
		}
	case <-time.After(wait):
		t.Fatal("the stream did not end")
	}
	if _, err := io.ReadAll(events); err != nil {
		t.Errorf("the stream's body: %v, want its end", err)
	}
}

// TestARequestForASilentLiveOwnersConversationIsRefused: when the owner
// does not answer but still holds its lock (cut off from the other nodes,
// not from the database), the request gets 503 and a reason, and the
// conversation stays where it is.
func TestARequestForASilentLiveOwnersConversationIsRefused(t *testing.T) {
	url := newCluster(t)
	a := join(t, url, Options{URL: "http://127.0.0.1:1"}) // nothing listens there
	b := startSite(t, url)
	hold(t, a, "c1")

	res := b.do(t, "POST", "/c/c1/echo", "hello", nil)
	status, body := text(t, res)
	if status != http.StatusServiceUnavailable || res.Header.Get("Retry-After") == "" || !strings.Contains(body, "does not answer") {
		t.Errorf("POST to b = %d (Retry-After %q) %q, want 503 with Retry-After saying the owner does not answer",
			status, res.Header.Get("Retry-After"), body)
	}
	elsewhere(t, b.node, "c1", a)
}

// TestADrainingNodeHandsItsConversationsOver: once a node drains, the next
// request for its conversation, on another node, is served there; the
// draining node's open stream of it ends so its browser reconnects; and a
// request sent to the draining node for a conversation no one holds is
// refused with Retry-After, for the load balancer to send elsewhere.
func TestADrainingNodeHandsItsConversationsOver(t *testing.T) {
	url := newCluster(t)
	a, b := startSite(t, url), startSite(t, url)
	events := bufio.NewReader(a.do(t, "GET", "/c/c1/stream?type=text/event-stream", "", nil).Body)
	if got := event(t, events); got != "data: one" {
		t.Fatalf("first event %q, want data: one", got)
	}

	if err := a.node.Drain(context.Background()); err != nil {
		t.Fatal(err)
	}
	status, body := text(t, b.do(t, "POST", "/c/c1/echo", "hello", nil))
	if status != http.StatusOK || !strings.HasPrefix(body, b.node.ID()+"|hello") {
		t.Errorf("POST to b for the draining node's conversation = %d %q, want served by b", status, body)
	}
	select {
	case cause := <-a.ended:
		if !errors.Is(cause, ErrLost) {
			t.Errorf("a's stream ended because %v, want ErrLost", cause)
		}
	case <-time.After(wait):
		t.Fatal("a's stream did not end")
	}

	res := a.do(t, "POST", "/c/c2/echo", "hello", nil)
	status, body = text(t, res)
	if status != http.StatusServiceUnavailable || res.Header.Get("Retry-After") == "" || !strings.Contains(body, "shutting down") {
		t.Errorf("POST to the draining node = %d (Retry-After %q) %q, want 503 saying it is shutting down", status, res.Header.Get("Retry-After"), body)
	}
}

// A node remembers for a moment where it forwarded a conversation's
// request, and forgets it when the owner lets the conversation go: the
// next request is then served where it lands.
func TestARememberedOwnerIsForgottenWhenItLetsGo(t *testing.T) {
	url := newCluster(t)
	a, b := startSite(t, url), startSite(t, url)
	lease := hold(t, a.node, "c1")
	served := func() string {
		t.Helper()
		status, body := text(t, b.do(t, "POST", "/c/c1/echo", "hello", nil))
		if status != http.StatusOK {
			t.Fatalf("POST to b = %d %q", status, body)
		}
		by, _, _ := strings.Cut(body, "|")
		return by
	}
	if by := served(); by != a.node.ID() {
		t.Fatalf("served by %s, want a, which holds it", by)
	}
	if by := served(); by != a.node.ID() {
		t.Fatalf("again: served by %s, want a", by)
	}
	released, cancel := b.node.Subscribe(TopicReleased)
	defer cancel()
	lease.Release()
	select {
	case c := <-released:
		if c != "c1" {
			t.Fatalf("released %q", c)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("b never heard of the release")
	}
	if by := served(); by != b.node.ID() {
		t.Errorf("after a let it go, served by %s, want b, where the request landed", by)
	}
}
