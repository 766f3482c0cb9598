package transport

import (
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/sweatpants-go/sweatpants/examples/demo"
	"github.com/sweatpants-go/sweatpants/internal/chat"
	"github.com/sweatpants-go/sweatpants/internal/kindset"
	"github.com/sweatpants-go/sweatpants/internal/offline"
	"github.com/sweatpants-go/sweatpants/internal/registry"
	"github.com/sweatpants-go/sweatpants/internal/store/storetest"
)

// GET /metrics is served by the configured handler, with no session, and
// left out of the access log; with none configured there is no such route.
func TestMetricsRoute(t *testing.T) {
	svc := chat.New(chat.Config{Store: storetest.Open(t), Assistants: registry.New(demo.Agents(demo.Options{})...), Kinds: kindset.New(demo.Kinds()...), Model: offline.New()})
	t.Cleanup(svc.Close)
	metrics := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("sweatpants_up 1\n")) })
	for _, tc := range []struct {
		name    string
		handler http.Handler
		status  int
		body    string
	}{{"configured", metrics, http.StatusOK, "sweatpants_up 1\n"}, {"not configured", nil, http.StatusNotFound, ""}} {
		t.Run(tc.name, func(t *testing.T) {
			var logs lockedBuffer
			h := NewServer(Config{Chat: svc, Log: slog.New(slog.NewJSONHandler(&logs, nil)), Metrics: tc.handler})
			rec := httptest.NewRecorder()
			req := httptest.NewRequest(http.MethodGet, "/metrics", nil)
			req.Host = "127.0.0.1:8080" // as a scraper on the machine sends it
			h.ServeHTTP(rec, req)
			if rec.Code != tc.status || (tc.body != "" && rec.Body.String() != tc.body) {
				t.Errorf("GET /metrics: %d %q, want %d %q", rec.Code, rec.Body.String(), tc.status, tc.body)
			}
			if tc.handler != nil && strings.Contains(logs.buf.String(), "/metrics") {
				t.Errorf("a scrape is in the access log: %s", logs.buf.String())
			}
		})
	}
}
