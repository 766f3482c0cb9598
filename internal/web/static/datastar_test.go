package static

import (
	"crypto/sha256"
	"encoding/hex"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
)

// client is a stand-in for the Datastar client, with its sha256.
var client = []byte("// a stand-in for datastar.js\n")

func clientSHA() string {
	sum := sha256.Sum256(client)
	return hex.EncodeToString(sum[:])
}

// modCache makes a module cache holding the pinned module with js as its
// bundles/datastar.js.
func modCache(t *testing.T, js []byte) string {
	t.Helper()
	dir := t.TempDir()
	bundles := filepath.Join(dir, "github.com", "starfederation", "datastar@"+DatastarVersion, "bundles")
	if err := os.MkdirAll(bundles, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(bundles, "datastar.js"), js, 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestFindDatastar(t *testing.T) {
	wrong := []byte("// another version\n")
	given := filepath.Join(t.TempDir(), "datastar.js")
	if err := os.WriteFile(given, client, 0o644); err != nil {
		t.Fatal(err)
	}
	givenWrong := filepath.Join(t.TempDir(), "datastar.js")
	if err := os.WriteFile(givenWrong, wrong, 0o644); err != nil {
		t.Fatal(err)
	}
	embedded := fstest.MapFS{"datastar.js": {Data: client}, "app.css": {}}
	without := fstest.MapFS{"app.css": {}}
	cache := modCache(t, client)
	emptyCache := t.TempDir()
	tests := []struct {
		name     string
		places   DatastarPlaces
		wantFrom string
		wantErr  []string
	}{
		{"embedded", DatastarPlaces{Embedded: embedded, ModCache: emptyCache}, "embedded", nil},
		{"embedded before the module cache", DatastarPlaces{Embedded: embedded, ModCache: modCache(t, wrong)}, "embedded", nil},
		{"embedded with another version", DatastarPlaces{Embedded: fstest.MapFS{"datastar.js": {Data: wrong}}}, "",
			[]string{"datastar client embedded: sha256", "want " + clientSHA(), DatastarModule + "@" + DatastarVersion}},
		{"module cache", DatastarPlaces{Embedded: without, ModCache: cache},
			filepath.Join(cache, "github.com", "starfederation", "datastar@v1.0.0", "bundles", "datastar.js"), nil},
		{"module cache with another version", DatastarPlaces{Embedded: without, ModCache: modCache(t, wrong)}, "",
			[]string{"sha256", "want " + clientSHA(), "it is not bundles/datastar.js"}},
		{"given path", DatastarPlaces{Path: given, Embedded: without, ModCache: emptyCache}, given, nil},
		{"given path before the binary's own", DatastarPlaces{Path: given, Embedded: fstest.MapFS{"datastar.js": {Data: wrong}}}, given, nil},
		{"given path with another version", DatastarPlaces{Path: givenWrong, Embedded: embedded, ModCache: cache}, "",
			[]string{"datastar client " + givenWrong + ": sha256"}},
		{"given path missing", DatastarPlaces{Path: given + ".missing", Embedded: embedded, ModCache: cache}, "",
			[]string{"datastar client: open " + given + ".missing"}},
		{"nowhere", DatastarPlaces{Embedded: without, ModCache: emptyCache}, "",
			[]string{"not in this binary", "not in the Go module cache (" + emptyCache + ")",
				"run `go mod download github.com/starfederation/datastar@v1.0.0`", "--datastar"}},
		{"nowhere, no module cache", DatastarPlaces{}, "", []string{"module cache (unknown)", DatastarFix}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := findDatastar(tt.places, clientSHA())
			if tt.wantErr != nil {
				if err == nil {
					t.Fatalf("found the client at %s, want an error", got.From)
				}
				for _, w := range tt.wantErr {
					if !strings.Contains(err.Error(), w) {
						t.Errorf("error %q, want it to say %q", err, w)
					}
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got.From != tt.wantFrom || string(got.JS) != string(client) {
				t.Errorf("found %q at %s, want the client at %s", got.JS, got.From, tt.wantFrom)
			}
		})
	}
}

// TestFindDatastarPinned checks the pinned sha256 against the real client,
// where this machine has it (after `make build` or DatastarFix).
func TestFindDatastarPinned(t *testing.T) {
	d, err := FindDatastar(DatastarPlaces{Embedded: Files, ModCache: ModCache(os.Getenv)})
	if err != nil && strings.Contains(err.Error(), "not in this binary") {
		t.Skipf("no Datastar client on this machine: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(d.JS), "datastar") {
		t.Errorf("the client from %s does not look like Datastar", d.From)
	}
}

func TestModCacheFromEnvironment(t *testing.T) {
	env := map[string]string{"GOMODCACHE": "/x/mod", "GOPATH": "/y"}
	if got := ModCache(func(k string) string { return env[k] }); got != "/x/mod" {
		t.Errorf("module cache %q, want GOMODCACHE's /x/mod", got)
	}
}

func TestDatastarHandler(t *testing.T) {
	next := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "next "+r.Method+" "+r.URL.Path) })
	h := Datastar{JS: client, From: "test"}.Handler(next)
	tests := []struct {
		method, path, want, wantType string
	}{
		{http.MethodGet, "/static/datastar.js", string(client), "text/javascript; charset=utf-8"},
		{http.MethodHead, "/static/datastar.js", "", "text/javascript; charset=utf-8"},
		{http.MethodGet, "/static/app.css", "next GET /static/app.css", ""},
		{http.MethodPost, "/static/datastar.js", "next POST /static/datastar.js", ""},
		{http.MethodGet, "/", "next GET /", ""},
	}
	for _, tt := range tests {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(tt.method, tt.path, nil))
		if rec.Body.String() != tt.want {
			t.Errorf("%s %s: body %q, want %q", tt.method, tt.path, rec.Body, tt.want)
		}
		if tt.wantType != "" && (rec.Header().Get("Content-Type") != tt.wantType || rec.Header().Get("X-Content-Type-Options") != "nosniff") {
			t.Errorf("%s %s: headers %v", tt.method, tt.path, rec.Header())
		}
	}
}
