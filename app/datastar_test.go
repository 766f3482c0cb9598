package app

import (
	"crypto/sha256"
	"encoding/hex"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sweatpants-go/sweatpants/internal/web/static"
)

// datastar finds the Datastar client as serve does with the tests' empty
// environment: in the test binary, else in the Go module cache.
func datastar() (static.Datastar, error) {
	return static.FindDatastar(static.DatastarPlaces{Embedded: static.Files, ModCache: static.ModCache(func(string) string { return "" })})
}

func haveDatastar() bool {
	_, err := datastar()
	return err == nil
}

// needDatastar skips a test that starts the server where this machine has
// no Datastar client (a fresh clone before `make build` or the download),
// since the server rightly refuses to start then.
func needDatastar(t *testing.T) {
	t.Helper()
	if _, err := datastar(); err != nil {
		t.Skipf("the server cannot start here: %v", err)
	}
}

// TestServeServesTheCheckedDatastarClient: the page's client is the
// pinned one, from the binary, the module cache or --datastar.
func TestServeServesTheCheckedDatastarClient(t *testing.T) {
	found, err := datastar()
	if err != nil {
		t.Skipf("no Datastar client here: %v", err)
	}
	given := filepath.Join(t.TempDir(), "datastar.js")
	if err := os.WriteFile(given, found.JS, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{nil, {"--datastar", given}} {
		addr := startServer(t, args...)
		res, err := http.Get("http://" + addr + "/static/datastar.js")
		if err != nil {
			t.Fatal(err)
		}
		js, err := io.ReadAll(res.Body)
		res.Body.Close()
		if err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256(js)
		if res.StatusCode != http.StatusOK || hex.EncodeToString(sum[:]) != static.DatastarSHA256 {
			t.Errorf("serve %q: /static/datastar.js %s, sha256 %x, want the pinned client", args, res.Status, sum)
		}
	}
}

// TestServeRefusesAWrongDatastarClient: a client that is not the pinned
// one stops the server at start, saying what is wrong, before any
// database is made.
func TestServeRefusesAWrongDatastarClient(t *testing.T) {
	dir := t.TempDir()
	wrong := filepath.Join(dir, "datastar.js")
	if err := os.WriteFile(wrong, []byte("// datastar 0.21\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(dir, "x.db")
	for _, tt := range []struct{ path, want string }{
		{wrong, "datastar client " + wrong + ": sha256"},
		{filepath.Join(dir, "missing.js"), "datastar client: open " + filepath.Join(dir, "missing.js")},
	} {
		_, _, err := runArgs(t, "serve", "--addr", "127.0.0.1:0", "--db", db, "--datastar", tt.path)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("--datastar %s: got %v, want %q", tt.path, err, tt.want)
		}
	}
	if _, err := os.Stat(db); !os.IsNotExist(err) {
		t.Errorf("the refused server made its database: %v", err)
	}
}
