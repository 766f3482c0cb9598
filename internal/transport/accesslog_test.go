package transport

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/sweatpants-go/sweatpants/examples/demo"
	"github.com/sweatpants-go/sweatpants/internal/chat"
	"github.com/sweatpants-go/sweatpants/internal/kindset"
	"github.com/sweatpants-go/sweatpants/internal/offline"
	"github.com/sweatpants-go/sweatpants/internal/registry"
	"github.com/sweatpants-go/sweatpants/internal/store/storetest"
)

// lockedBuffer is a log's output, written by the server's goroutines.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) lines() []map[string]any {
	b.mu.Lock()
	defer b.mu.Unlock()
	var out []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(b.buf.String()), "\n") {
		var m map[string]any
		if json.Unmarshal([]byte(l), &m) == nil && m["msg"] == "request" {
			out = append(out, m)
		}
	}
	return out
}

// Each request is logged once answered: its method, route pattern, status,
// duration and conversation; static files and health checks are not.
func TestTheAccessLog(t *testing.T) {
	var logs lockedBuffer
	svc := chat.New(chat.Config{Store: storetest.Open(t), Assistants: registry.New(demo.Agents(demo.Options{})...), Kinds: kindset.New(demo.Kinds()...), Model: offline.New()})
	t.Cleanup(svc.Close)
	srv := httptest.NewServer(NewServer(Config{Chat: svc, Log: slog.New(slog.NewJSONHandler(&logs, nil))}))
	t.Cleanup(srv.Close)
	a := &testApp{srv: srv, svc: svc}
	b := a.browser(t)
	conv := b.newConversation("survey")
	b.do(http.MethodGet, "/c/"+conv, "", "")
	b.do(http.MethodGet, "/c/nosuch", "", "")
	b.do(http.MethodGet, "/healthz", "", "")
	b.do(http.MethodGet, "/static/app.css", "", "")

	got := logs.lines()
	want := []struct {
		method, route string
		status        float64
		conversation  string
	}{
		{"POST", "/c", 303, ""},
		{"GET", "/c/:id", 200, conv},
		{"GET", "/c/:id", 404, "nosuch"},
	}
	if len(got) != len(want) {
		t.Fatalf("%d request lines, want %d: %v", len(got), len(want), got)
	}
	for i, w := range want {
		g := got[i]
		if g["level"] != "INFO" || g["method"] != w.method || g["route"] != w.route || g["status"] != w.status || (w.conversation != "" && g["conversation"] != w.conversation) {
			t.Errorf("line %d = %v, want %+v", i, g, w)
		}
		if _, ok := g["duration_ms"].(float64); !ok {
			t.Errorf("line %d has no duration: %v", i, g)
		}
	}
}
