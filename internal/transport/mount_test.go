package transport

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/sweatpants-go/sweatpants/agents"
	"github.com/sweatpants-go/sweatpants/internal/chat"
	"github.com/sweatpants-go/sweatpants/internal/offline"
	"github.com/sweatpants-go/sweatpants/internal/registry"
	"github.com/sweatpants-go/sweatpants/internal/store/storetest"
)

// mountApp serves a binding at /binding beside the pages, with an
// assistant of its own kept off the pages.
func mountApp(t *testing.T, reached *atomic.Int32) *httptest.Server {
	t.Helper()
	echo := func(context.Context, string) (string, error) { return "ok", nil }
	svc := chat.New(chat.Config{Store: storetest.Open(t), Model: offline.New(), Assistants: registry.New(
		agents.Assistant{Name: "plain-helper", Description: "Helps.", Turn: echo},
		agents.Assistant{Name: "binding-runner", Description: "Runs a binding's calls.", Turn: echo, Unlisted: true})})
	t.Cleanup(svc.Close)
	binding := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		reached.Add(1)
		io.WriteString(w, "binding "+r.Method)
	})
	srv := httptest.NewServer(NewServer(Config{Chat: svc, Log: slog.New(slog.DiscardHandler), Mounts: []Mount{{Path: "/binding", Handler: binding}}}))
	t.Cleanup(srv.Close)
	return srv
}

// TestAMountIsServedBehindThePagesProtection: a binding's handler answers
// every method at its path, but a foreign Host or another site's page
// never reaches it.
func TestAMountIsServedBehindThePagesProtection(t *testing.T) {
	var reached atomic.Int32
	srv := mountApp(t, &reached)
	do := func(method string, header map[string]string, host string) (int, string) {
		req, _ := http.NewRequest(method, srv.URL+"/binding", strings.NewReader("{}"))
		for k, v := range header {
			req.Header.Set(k, v)
		}
		if host != "" {
			req.Host = host
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res.StatusCode, string(b)
	}
	for _, m := range []string{http.MethodGet, http.MethodPost, http.MethodDelete} {
		if code, body := do(m, nil, ""); code != 200 || body != "binding "+m {
			t.Errorf("%s /binding: %d %q; want the binding's answer", m, code, body)
		}
	}
	n := reached.Load()
	if code, _ := do(http.MethodPost, map[string]string{"Origin": "https://evil.example", "Sec-Fetch-Site": "cross-site"}, ""); code != http.StatusForbidden {
		t.Errorf("a cross-origin POST: %d; want 403", code)
	}
	if code, _ := do(http.MethodPost, nil, "evil.example"); code != http.StatusForbidden {
		t.Errorf("a foreign Host: %d; want 403", code)
	}
	if reached.Load() != n {
		t.Errorf("the binding was reached by a refused request")
	}
}

// TestAnUnlistedAssistantIsNotOffered: the new-chat page offers the
// assistants a user may choose, not one a binding runs.
func TestAnUnlistedAssistantIsNotOffered(t *testing.T) {
	var reached atomic.Int32
	srv := mountApp(t, &reached)
	res, err := http.Get(srv.URL + "/")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	page, _ := io.ReadAll(res.Body)
	if !strings.Contains(string(page), "plain-helper") {
		t.Fatalf("the page does not offer plain-helper:\n%s", page)
	}
	if strings.Contains(string(page), "binding-runner") {
		t.Errorf("the page offers the unlisted binding-runner")
	}
}
