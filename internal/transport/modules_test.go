package transport

import (
	"net/http"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/sweatpants-go/sweatpants/examples/demo"
	"github.com/sweatpants-go/sweatpants/internal/chat"
	"github.com/sweatpants-go/sweatpants/internal/kindset"
	"github.com/sweatpants-go/sweatpants/internal/offline"
	"github.com/sweatpants-go/sweatpants/internal/registry"
	"github.com/sweatpants-go/sweatpants/internal/store"
)

// An application's browser modules are served at /app/<name> as
// JavaScript, nothing else of its file system is, and every conversation
// page loads them after the page's own methods, as module scripts.
func TestTheApplicationsModulesAreServedAndLoaded(t *testing.T) {
	mods := fstest.MapFS{
		"camera.js":       {Data: []byte("import { implement } from '/static/protocol.js'\n")},
		"beep.js":         {Data: []byte("export {}\n")},
		"notes.txt":       {Data: []byte("not a module")},
		"lib/inner.js":    {Data: []byte("export {}\n")},
		"folder.js/x.txt": {Data: []byte("a directory named like a module")},
	}
	a := newTestAppWith(t, chat.Config{Assistants: registry.New(demo.Agents(demo.Options{})...), Kinds: kindset.New(demo.Kinds()...), Model: offline.New()},
		func(_ *store.DB, c *Config) { c.Modules = mods })
	b := a.browser(t)

	t.Run("served", func(t *testing.T) {
		res, err := b.c.Get(a.srv.URL + "/app/camera.js")
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if got, want := res.StatusCode, http.StatusOK; got != want {
			t.Fatalf("GET /app/camera.js = %d, want %d", got, want)
		}
		if got, want := res.Header.Get("Content-Type"), "text/javascript; charset=utf-8"; got != want {
			t.Errorf("Content-Type = %q, want %q", got, want)
		}
		// The module runs under the page's policy: scripts from the app's
		// own origin, never inline.
		csp := res.Header.Get("Content-Security-Policy")
		for _, d := range strings.Split(csp, ";") {
			if f := strings.Fields(d); len(f) > 0 && f[0] == "script-src" {
				if !slices.Contains(f, "'self'") || slices.Contains(f, "'unsafe-inline'") || slices.Contains(f, "*") {
					t.Errorf("script-src is %q, want the app's own scripts and no inline ones", d)
				}
			}
		}
	})

	t.Run("nothing else", func(t *testing.T) {
		for _, path := range []string{"/app/notes.txt", "/app/lib/inner.js", "/app/", "/app/folder.js", "/app/..%2Fsecret.js", "/app/missing.js"} {
			code, _ := b.do(http.MethodGet, path, "", "")
			if code != http.StatusNotFound {
				t.Errorf("GET %s = %d, want 404", path, code)
			}
		}
	})

	t.Run("loaded by the page", func(t *testing.T) {
		conv := b.newConversation("showcase")
		code, page := b.do(http.MethodGet, "/c/"+conv, "", "")
		if code != http.StatusOK {
			t.Fatalf("GET /c/%s = %d", conv, code)
		}
		order := []string{
			`<script type="module" src="/static/protocol.js"></script>`,
			`<script type="module" src="/static/methods.js"></script>`,
			`<script type="module" src="/app/beep.js"></script>`,
			`<script type="module" src="/app/camera.js"></script>`,
			`<script type="module" src="/static/datastar.js"></script>`,
		}
		at := 0
		for _, s := range order {
			i := strings.Index(page[at:], s)
			if i < 0 {
				t.Fatalf("the page does not load %s after what comes before it in %q", s, order)
			}
			at += i + len(s)
		}
		if strings.Contains(page, "/app/notes.txt") || strings.Contains(page, "inner.js") {
			t.Error("the page loads a file that is not a module at the root")
		}
	})

	t.Run("not by other pages", func(t *testing.T) {
		code, page := b.do(http.MethodGet, "/settings/permissions", "", "")
		if code != http.StatusOK {
			t.Fatalf("GET /settings/permissions = %d", code)
		}
		if strings.Contains(page, "/app/") || strings.Contains(page, "/static/protocol.js") {
			t.Error("a page with no question on it loads the methods")
		}
	})
}
