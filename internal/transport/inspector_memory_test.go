package transport

import (
	"context"
	"io"
	"net"
	"net/http"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sweatpants-go/sweatpants/examples/demo"
	"github.com/sweatpants-go/sweatpants/internal/chat"
	"github.com/sweatpants-go/sweatpants/internal/kindset"
	"github.com/sweatpants-go/sweatpants/internal/offline"
	"github.com/sweatpants-go/sweatpants/internal/registry"
	"github.com/sweatpants-go/sweatpants/internal/store"
	"github.com/sweatpants-go/sweatpants/internal/web/templates"
)

// demoConfig is the service newTestApp serves.
func demoConfig() chat.Config {
	return chat.Config{Assistants: registry.New(demo.Agents(demo.Options{})...), Kinds: kindset.New(demo.Kinds()...), Model: offline.New()}
}

// openStreams is how many streams the server holds now.
func (s *Server) openStreams() int {
	s.streams.mu.Lock()
	defer s.streams.mu.Unlock()
	return s.streams.open
}

// stalledClient is a browser whose connections take a few kilobytes and
// then nothing: a client that opens streams and never reads them.
func stalledClient(b *browser) *http.Client {
	jar := b.c.Jar
	dialer := &net.Dialer{Control: func(_, _ string, c syscall.RawConn) error {
		var err error
		c.Control(func(fd uintptr) { err = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, 4<<10) })
		return err
	}}
	return &http.Client{Jar: jar, Transport: &http.Transport{DialContext: dialer.DialContext, DisableKeepAlives: true}}
}

// Many inspectors opened on a big tree and never read hold a few
// drawings of the tree, not one each: the whole drawings are made and sent
// a few at a time, and the streams that wait for their turn hold none.
func TestNeverReadInspectorsKeepTheHeapBounded(t *testing.T) {
	const streams, draws = 24, 2
	a := newTestAppWith(t, demoConfig(), func(_ *store.DB, c *Config) {
		c.MaxStreams, c.StreamStall, c.WholeDraws = streams+1, time.Minute, draws
	})
	owner := a.browser(t)
	conv := owner.newConversation("survey")
	// Drawn, the tree is larger than what the connections' buffers take,
	// so a stream that sends it to a client that does not read stays
	// blocked, holding it.
	growInspectedTree(t, a.db, conv, 6000)

	// One inspector read whole says how large a drawing is.
	drawing := len(drawnWhole(t, owner, conv))
	waitFor(t, "the first inspector to end", func() bool { return a.server.openStreams() == 0 })
	t.Logf("a drawing of the tree is %.1f MB", float64(drawing)/1e6)
	idle := liveHeap()

	ctx, cancel := context.WithCancel(t.Context())
	stalled := stalledClient(owner)
	for i := range streams {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, a.srv.URL+"/c/"+conv+"/tree/stream", nil)
		res, err := stalled.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		if res.StatusCode != http.StatusOK {
			t.Fatalf("stream %d: status %d", i, res.StatusCode)
		}
		defer res.Body.Close()
	}
	waitFor(t, "the inspectors to be open and drawing", func() bool {
		return a.server.openStreams() == streams && len(a.server.draws) == draws
	})
	// Measured once the heap holds still, after a collection: what the
	// streams hold while they wait, not what making a drawing leaves to
	// collect.
	held := stableHeap(t)
	held -= min(held, idle)
	t.Logf("%d unread inspectors hold %.1f MB", streams, float64(held)/1e6)
	// A drawing in the making or the sending is held as the inspection,
	// its HTML and the event it is sent as: a few times its size.
	if limit := uint64(4 * draws * drawing); held > limit {
		t.Errorf("%d unread inspectors hold %.1f MB, over %.1f MB (what %d drawings of %.1f MB take)",
			streams, float64(held)/1e6, float64(limit)/1e6, draws, float64(drawing)/1e6)
	}
	cancel()
	waitFor(t, "the inspectors to end with their connections", func() bool { return a.server.openStreams() == 0 })
}

// drawnWhole opens conv's inspector stream and returns its first event,
// the inspector drawn whole, however long a loaded machine takes to draw
// a big tree.
func drawnWhole(t *testing.T, b *browser, conv string) string {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	res, err := b.open(ctx, "/c/"+conv+"/tree/stream")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var first sseEvent
	parseSSE(res.Body, func(e sseEvent) bool {
		first = e
		return false
	})
	if !strings.Contains(first.Data(), `id="inspector"`) {
		t.Fatalf("the inspector's first event is not the inspector drawn whole: %.200q", first.Data())
	}
	return first.Data()
}

// stableHeap waits until two collections in a row find the heap within
// 1% of each other, and returns what the second found.
func stableHeap(t *testing.T) uint64 {
	t.Helper()
	var was uint64
	waitFor(t, "the heap to hold still", func() bool {
		now := liveHeap()
		still := was > 0 && max(now, was)-min(now, was) < was/100
		was = now
		return still
	})
	return was
}

// liveHeap is the heap in use after a collection.
func liveHeap() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// A reader too slow to take what it is sent is dropped, and the page it
// reconnects to is drawn whole as the tree is then: it ends up current.
// The stall is long enough for a client that reads to keep up on a
// loaded machine, and short enough for the test.
func TestASlowInspectorIsDroppedToARedrawAndEndsCurrent(t *testing.T) {
	a := newTestAppWith(t, demoConfig(), func(_ *store.DB, c *Config) { c.StreamStall = 2 * time.Second })
	owner := a.browser(t)
	conv := owner.newConversation("survey")
	growInspectedTree(t, a.db, conv, 3000)

	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, a.srv.URL+"/c/"+conv+"/tree/stream", nil)
	slow, err := stalledClient(owner).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer slow.Body.Close()
	waitFor(t, "the slow inspector to be dropped", func() bool { return a.server.openStreams() == 0 })
	// What it was sent before it was dropped ends; it is not the tree.
	if _, err := io.Copy(io.Discard, slow.Body); err == nil {
		t.Log("the dropped stream ended cleanly")
	}

	// The conversation moves on; the browser reconnects.
	if code, body := owner.do(http.MethodPost, "/c/"+conv+"/messages", "application/json", `{"message":"one more thing"}`); code != http.StatusNoContent {
		t.Fatalf("send: %d %s", code, body)
	}
	owner.settled(t, conv)
	nodes, err := a.db.Nodes(ctx, conv)
	if err != nil {
		t.Fatal(err)
	}
	newest := nodes[len(nodes)-1].ID
	drawn := drawnWhole(t, owner, conv)
	if !strings.Contains(drawn, `id="`+templates.NodeElementID(newest)+`"`) {
		t.Errorf("the redraw after the reconnect does not show node %d, the newest", newest)
	}
}

// waitFor waits until cond holds, for at most a minute.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
