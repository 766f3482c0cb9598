package static

import (
	"bytes"
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// The Datastar client the pages load: bundles/datastar.js of Datastar's own
// Go module at this version, with this sha256. A different version speaks
// another wire protocol, so only this one is served.
const (
	DatastarModule  = "github.com/starfederation/datastar"
	DatastarVersion = "v1.0.0"
	DatastarSHA256  = "e7d6ad0e83980b37706f4494a36db3c58b5dc6cd5a9e5bd5166dbffa6b56a06a"
	// DatastarFix is the one command that puts the client where the
	// server finds it: the pinned module in the Go module cache.
	DatastarFix = "go mod download " + DatastarModule + "@" + DatastarVersion
)

// datastarName is the client's name under /static/ and in Files.
const datastarName = "datastar.js"

// DatastarPlaces says where FindDatastar looks for the client.
type DatastarPlaces struct {
	// Path is a file given by the operator (--datastar). When set it is
	// the only place looked at, so that a mistake in it is said, not
	// covered by another copy.
	Path string
	// Embedded is the binary's own assets (Files), which hold the client
	// when `make build` copied it in.
	Embedded fs.FS
	// ModCache is the Go module cache (ModCache), where the pinned module
	// is unpacked by DatastarFix.
	ModCache string
}

// Datastar is the client found at start, checked against DatastarSHA256.
type Datastar struct {
	JS   []byte
	From string // where it was found, for the log
}

// FindDatastar finds the Datastar client: at places.Path if given, else in
// the embedded assets, else in the pinned module in the module cache. A
// copy whose sha256 is not DatastarSHA256 is refused. Finding none is an
// error that names DatastarFix, so that a server never serves pages whose
// client is missing.
func FindDatastar(places DatastarPlaces) (Datastar, error) {
	return findDatastar(places, DatastarSHA256)
}

// findDatastar is FindDatastar accepting the sha256 want, so that tests
// can stand in a client of their own.
func findDatastar(places DatastarPlaces, want string) (Datastar, error) {
	if places.Path != "" {
		js, err := os.ReadFile(places.Path)
		if err != nil {
			return Datastar{}, fmt.Errorf("datastar client: %w", err)
		}
		return checked(js, places.Path, want)
	}
	if places.Embedded != nil {
		js, err := fs.ReadFile(places.Embedded, datastarName)
		if err == nil {
			return checked(js, "embedded", want)
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return Datastar{}, fmt.Errorf("datastar client: embedded: %w", err)
		}
	}
	if places.ModCache != "" {
		path := filepath.Join(places.ModCache, filepath.FromSlash(DatastarModule)+"@"+DatastarVersion, "bundles", datastarName)
		js, err := os.ReadFile(path)
		if err == nil {
			return checked(js, path, want)
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return Datastar{}, fmt.Errorf("datastar client: %w", err)
		}
	}
	return Datastar{}, fmt.Errorf("the Datastar client (%s %s) is not in this binary, and not in the Go module cache (%s); run `%s`, or give its bundles/datastar.js with --datastar",
		DatastarModule, DatastarVersion, cmp.Or(places.ModCache, "unknown"), DatastarFix)
}

// checked returns js as the client found at from if its sha256 is want.
func checked(js []byte, from, want string) (Datastar, error) {
	sum := sha256.Sum256(js)
	if got := hex.EncodeToString(sum[:]); got != want {
		return Datastar{}, fmt.Errorf("datastar client %s: sha256 %s, want %s: it is not bundles/datastar.js of %s@%s",
			from, got, want, DatastarModule, DatastarVersion)
	}
	return Datastar{JS: js, From: from}, nil
}

// ModCache returns the Go module cache as the go command would: GOMODCACHE,
// else what `go env GOMODCACHE` says when go is installed (it also reads
// `go env -w` settings), else GOPATH's first entry's pkg/mod, else
// ~/go/pkg/mod. It returns "" when none can be told.
func ModCache(getenv func(string) string) string {
	if dir := getenv("GOMODCACHE"); dir != "" {
		return dir
	}
	if goBin, err := exec.LookPath("go"); err == nil {
		if out, err := exec.Command(goBin, "env", "GOMODCACHE").Output(); err == nil {
			if dir := strings.TrimSpace(string(out)); dir != "" {
				return dir
			}
		}
	}
	if gopath := getenv("GOPATH"); gopath != "" {
		return filepath.Join(filepath.SplitList(gopath)[0], "pkg", "mod")
	}
	if home, err := os.UserHomeDir(); err == nil {
		return filepath.Join(home, "go", "pkg", "mod")
	}
	return ""
}

// Handler serves the client at /static/datastar.js and hands every other
// request to next. The transport routes that path to it
// (transport.Config.Datastar), so the page loads the copy checked at start
// whichever place it came from, behind the server's own checks and headers.
func (d Datastar) Handler(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/static/"+datastarName || (r.Method != http.MethodGet && r.Method != http.MethodHead) {
			next.ServeHTTP(w, r)
			return
		}
		h := w.Header()
		h.Set("Content-Type", "text/javascript; charset=utf-8")
		h.Set("Cache-Control", "no-cache")
		h.Set("X-Content-Type-Options", "nosniff")
		http.ServeContent(w, r, datastarName, time.Time{}, bytes.NewReader(d.JS))
	})
}
