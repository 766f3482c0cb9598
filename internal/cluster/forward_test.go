package cluster

import (
	"bufio"
	"net/http"
	"strings"
	"testing"
	"time"
)

// inBackground sends a request to s on a goroutine of its own, so that a
// test can act while it waits; the response comes on the channel.
func (s *site) inBackground(t *testing.T, method, path, body string) <-chan *http.Response {
	t.Helper()
	req, err := http.NewRequest(method, s.srv.URL+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Host = "chat.example"
	got := make(chan *http.Response, 1)
	go func() {
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Errorf("%s %s: %v", method, path, err)
			close(got)
			return
		}
		t.Cleanup(func() { res.Body.Close() })
		got <- res
	}()
	return got
}

// answered waits for a response sent inBackground.
func answered(t *testing.T, got <-chan *http.Response) *http.Response {
	t.Helper()
	select {
	case res, ok := <-got:
		if !ok {
			t.FailNow()
		}
		return res
	case <-time.After(wait):
		t.Fatalf("no response after %v", wait)
		return nil
	}
}

// reached waits until a frozen site's handler has a request.
func reached(t *testing.T, s *site) {
	t.Helper()
	select {
	case <-s.entered:
	case <-time.After(wait):
		t.Fatalf("the frozen node was not reached after %v", wait)
	}
}

// ahead is a clock an hour ahead: every lease of the other nodes has
// expired for a node that reads it, so it takes any conversation, as a
// survivor takes a frozen node's once its lease ran out.
func ahead() time.Time { return time.Now().Add(time.Hour) }

// TestAForwardToAFrozenOwnerIsDoneAgainWhereTheConversationMoved: an
// answer forwarded to an owner that does not answer (stopped) is not left
// waiting on it: once another node takes the conversation over, the
// answer is forwarded there, body and all.
func TestAForwardToAFrozenOwnerIsDoneAgainWhereTheConversationMoved(t *testing.T) {
	url := newCluster(t)
	a, b := startSite(t, url), startSite(t, url)
	c := startSiteWith(t, url, Options{Now: ahead})
	hold(t, a.node, "c1")
	a.freeze(t)

	got := b.inBackground(t, "POST", "/c/c1/echo", "yes")
	reached(t, a)
	hold(t, c.node, "c1")

	status, body := text(t, answered(t, got))
	if want := c.node.ID() + "|yes|chat.example"; status != http.StatusOK || !strings.HasPrefix(body, want) {
		t.Errorf("POST to b = %d %q, want 200 from c: %q…", status, body, want)
	}
}

// TestAForwardToAnOwnerWhoseLeaseRanOutIsServedHere: when the frozen
// owner's lease runs out and no one else needs the conversation, the node
// the request came to sees it (it checks the leases it forwards for,
// every third of its TTL), takes the conversation and serves the request.
func TestAForwardToAnOwnerWhoseLeaseRanOutIsServedHere(t *testing.T) {
	url := newCluster(t)
	a := startSite(t, url)
	b := startSiteWith(t, url, Options{LeaseTTL: 300 * time.Millisecond, ForwardTimeout: time.Hour})
	hold(t, a.node, "c1")
	a.freeze(t)

	got := b.inBackground(t, "POST", "/c/c1/echo", "yes")
	reached(t, a)
	exec(t, url, "UPDATE cluster_leases SET expires_at = 0 WHERE conversation_id = 'c1'")

	status, body := text(t, answered(t, got))
	if want := b.node.ID() + "|yes|"; status != http.StatusOK || !strings.HasPrefix(body, want) {
		t.Errorf("POST to b = %d %q, want 200 served by b: %q…", status, body, want)
	}
}

// TestAForwardToAnOwnerThatDoesNotAnswerEndsAtItsDeadline: an owner that
// holds on to its lease but does not begin its answer within the
// forwarding deadline gets the request refused with Retry-After, at the
// deadline; the conversation stays where it is.
func TestAForwardToAnOwnerThatDoesNotAnswerEndsAtItsDeadline(t *testing.T) {
	url := newCluster(t)
	a := startSite(t, url)
	b := startSiteWith(t, url, Options{ForwardTimeout: 200 * time.Millisecond})
	hold(t, a.node, "c1")
	a.freeze(t)

	res := answered(t, b.inBackground(t, "POST", "/c/c1/echo", "yes"))
	status, body := text(t, res)
	if status != http.StatusServiceUnavailable || res.Header.Get("Retry-After") == "" || !strings.Contains(body, "did not answer in time") {
		t.Errorf("POST to b = %d (Retry-After %q) %q, want 503 with Retry-After saying the server did not answer in time",
			status, res.Header.Get("Retry-After"), body)
	}
	elsewhere(t, b.node, "c1", a.node)
}

// TestAForwardedStreamFollowsTheConversationToItsNewOwner: a stream
// forwarded from an owner that stops sending goes on, once the
// conversation moves, with the new owner's events, from the last event
// passed on (Last-Event-ID), in the same response.
func TestAForwardedStreamFollowsTheConversationToItsNewOwner(t *testing.T) {
	url := newCluster(t)
	a, b := startSite(t, url), startSite(t, url)
	c := startSiteWith(t, url, Options{Now: ahead})
	hold(t, a.node, "c1")

	res := answered(t, b.inBackground(t, "GET", "/c/c1/events", ""))
	events := bufio.NewReader(res.Body)
	if got, want := event(t, events), "data: "+a.node.ID()+" after"; got != want {
		t.Fatalf("first event %q, want %q", got, want)
	}
	hold(t, c.node, "c1")
	if got, want := event(t, events), "data: "+c.node.ID()+" after "+a.node.ID(); got != want {
		t.Errorf("after the move: event %q, want %q", got, want)
	}
}

// TestARequestForAKilledOwnerIsForwardedToTheNodeThatTookItOver: a node
// that finds the owner it remembered gone, and the conversation taken
// over by a third node it had not heard of yet, forwards the request
// there rather than refusing it.
func TestARequestForAKilledOwnerIsForwardedToTheNodeThatTookItOver(t *testing.T) {
	url := newCluster(t)
	a, b, c := startSite(t, url), startSite(t, url), startSite(t, url)
	hold(t, a.node, "c1")
	a.srv.Close()
	a.node.crash()
	// c took the conversation over, and b has not heard: b still
	// remembers a as its owner.
	exec(t, url, "UPDATE cluster_leases SET node_id = $1, token = 0 WHERE conversation_id = 'c1'", c.node.ID())
	b.node.owners.put(&Elsewhere{Conversation: "c1", Node: a.node.ID(), URL: a.srv.URL}, time.Now())

	status, body := text(t, b.do(t, "POST", "/c/c1/echo", "yes", nil))
	if want := c.node.ID() + "|yes|"; status != http.StatusOK || !strings.HasPrefix(body, want) {
		t.Errorf("POST to b = %d %q, want 200 from c: %q…", status, body, want)
	}
}
