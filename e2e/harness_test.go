// Package e2e drives the real binary with playwright-go in real headless
// Chromium. `make e2e` installs Chromium and the Playwright driver first
// (scripts/e2e-deps.sh) and points these tests at them.
package e2e

import (
	"bufio"
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/playwright-community/playwright-go"

	"github.com/sweatpants-go/sweatpants/internal/store/pgtest"
)

var (
	binPath string
	browser playwright.Browser
)

func TestMain(m *testing.M) {
	os.Exit(runTests(m))
}

func runTests(m *testing.M) int {
	binPath = os.Getenv("SWEATPANTS_BIN")
	viaMake := binPath != "" // make e2e names the binary it built
	if binPath == "" {
		dir, err := os.MkdirTemp("", "sweatpants-e2e")
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		defer os.RemoveAll(dir)
		binPath = filepath.Join(dir, "sweatpants")
		build := exec.Command("go", "build", "-o", binPath, "../cmd/web")
		build.Stdout, build.Stderr = os.Stderr, os.Stderr
		if err := build.Run(); err != nil {
			fmt.Fprintln(os.Stderr, "build:", err)
			return 1
		}
	}
	pw, err := playwright.Run(&playwright.RunOptions{SkipInstallBrowsers: true, Verbose: false})
	if err != nil && !viaMake {
		// A plain `go test ./...` runs the unit tests; the browser tests
		// need what `make e2e` installs, and are skipped without it.
		fmt.Fprintln(os.Stderr, "e2e: skipped: the Playwright driver is not installed; `make e2e` installs it and runs these tests")
		return 0
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "start playwright (run `make e2e`, which installs the driver):", err)
		return 1
	}
	defer pw.Stop()
	exe := os.Getenv("CHROMIUM_PATH")
	if exe == "" {
		exe = "/usr/bin/chromium"
	}
	browser, err = pw.Chromium.Launch(playwright.BrowserTypeLaunchOptions{
		ExecutablePath: playwright.String(exe),
		Headless:       playwright.Bool(true),
		Args: []string{"--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
			"--disable-background-networking", "--disable-component-update", "--disable-sync",
			// A camera that films a test pattern, for the demo's photo: a
			// page sees it only where a test grants "camera".
			"--use-fake-device-for-media-stream"},
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, "launch chromium:", err)
		return 1
	}
	defer browser.Close()
	return pgtest.Run(m) // stops the PostgreSQL server a test started
}

// app is one running copy of the binary with its own database.
type app struct {
	t    *testing.T
	bin  string // the binary: binPath unless a test built its own
	db   string
	addr string // host:port, stable across restarts
	URL  string
	// nofile, when set, is the descriptor limit the binary runs under.
	nofile int

	mu   sync.Mutex
	cmd  *exec.Cmd
	logs strings.Builder
	done chan struct{}
}

// startApp starts the binary on a free loopback port with a fresh database
// and waits until it serves.
func startApp(t *testing.T, env ...string) *app {
	t.Helper()
	return startAppUnder(t, 0, env...)
}

// startAppUnder starts the binary as startApp does, limited to nofile file
// descriptors when nofile is not 0.
func startAppUnder(t *testing.T, nofile int, env ...string) *app {
	t.Helper()
	return startBinary(t, binPath, nofile, env...)
}

// startBinary starts bin, a program of package app, as startApp starts
// the binary under test.
func startBinary(t *testing.T, bin string, nofile int, env ...string) *app {
	t.Helper()
	return startBinaryOn(t, bin, filepath.Join(t.TempDir(), "data", "e2e.db"), nofile, env...)
}

// startAppOn starts the binary as startApp does, on the database db: a
// SQLite file or a postgres:// URL (internal/store/pgtest's Schema).
func startAppOn(t *testing.T, db string, env ...string) *app {
	t.Helper()
	return startBinaryOn(t, binPath, db, 0, env...)
}

func startBinaryOn(t *testing.T, bin, db string, nofile int, env ...string) *app {
	t.Helper()
	a := &app{t: t, bin: bin, db: db, addr: "127.0.0.1:0", nofile: nofile}
	a.start(env...)
	t.Cleanup(func() {
		a.stop(syscall.SIGTERM)
		if t.Failed() {
			t.Logf("server log:\n%s", a.log())
		}
	})
	return a
}

func (a *app) start(env ...string) {
	a.t.Helper()
	cmd := exec.Command(a.bin, "serve", "--addr", a.addr, "--db", a.db)
	if a.nofile > 0 {
		// The shell sets the limit (soft and hard, so the Go runtime
		// cannot raise it) and then becomes the binary, signals and all.
		cmd = exec.Command("/bin/sh", append([]string{"-c", `ulimit -n "$0" && exec "$@"`, strconv.Itoa(a.nofile)}, cmd.Args...)...)
	}
	cmd.Env = append(append(os.Environ(), "SWEATPANTS_PROVIDER=offline"), env...)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		a.t.Fatal(err)
	}
	cmd.Stderr = writerFunc(func(p []byte) (int, error) {
		a.mu.Lock()
		defer a.mu.Unlock()
		return a.logs.Write(p)
	})
	if err := cmd.Start(); err != nil {
		a.t.Fatalf("start %s: %v", a.bin, err)
	}
	a.mu.Lock()
	a.cmd, a.done = cmd, make(chan struct{})
	a.mu.Unlock()
	listening := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if u, ok := strings.CutPrefix(sc.Text(), "listening on "); ok {
				listening <- u
			}
		}
	}()
	done := a.done
	go func() { cmd.Wait(); close(done) }()
	select {
	case u := <-listening:
		a.URL = u
		a.addr = strings.TrimPrefix(u, "http://")
	case <-done:
		a.t.Fatalf("server exited before listening:\n%s", a.log())
	case <-time.After(patience(30 * time.Second)):
		a.t.Fatalf("server did not start listening:\n%s", a.log())
	}
	waitFor(a.t, 10*time.Second, "health check", func() bool {
		res, err := http.Get(a.URL + "/healthz")
		if err != nil {
			return false
		}
		res.Body.Close()
		return res.StatusCode == http.StatusOK
	})
}

func (a *app) stop(sig syscall.Signal) {
	a.mu.Lock()
	cmd, done := a.cmd, a.done
	a.mu.Unlock()
	if cmd == nil || cmd.Process == nil {
		return
	}
	select {
	case <-done:
		return
	default:
	}
	cmd.Process.Signal(sig)
	select {
	case <-done:
	case <-time.After(patience(15 * time.Second)):
		cmd.Process.Kill()
		<-done
		a.t.Errorf("server did not stop on %v", sig)
	}
}

func (a *app) log() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.logs.String()
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }

// patience scales a deadline by E2E_PATIENCE (a number; 3 when unset). A
// deadline says how long a test waits before it calls something broken,
// and a machine busy with another build may be several times slower than
// the one the deadline was chosen on; only a failing test waits it out,
// so a generous one costs a passing run nothing.
func patience(d time.Duration) time.Duration {
	scale := 3.0
	if v, err := strconv.ParseFloat(os.Getenv("E2E_PATIENCE"), 64); err == nil && v > 0 {
		scale = v
	}
	return time.Duration(float64(d) * scale)
}

// ms is d in the milliseconds Playwright's options take.
func ms(d time.Duration) float64 { return float64(d.Milliseconds()) }

// waitFor polls cond until it holds or the deadline (scaled by patience)
// passes.
func waitFor(t *testing.T, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), patience(timeout))
	defer cancel()
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for !cond() {
		select {
		case <-ctx.Done():
			t.Fatalf("timed out waiting for %s", what)
		case <-tick.C:
		}
	}
}

// newPage opens a page in a fresh browser context, so each test is a new
// browser session with its own cookies.
func newPage(t *testing.T) playwright.Page {
	t.Helper()
	return newPageWith(t, playwright.BrowserNewContextOptions{})
}

// newPageWith is newPage in a browser context made with opts: a colour
// scheme, a phone's screen.
func newPageWith(t *testing.T, opts playwright.BrowserNewContextOptions) playwright.Page {
	t.Helper()
	bctx, err := browser.NewContext(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { bctx.Close() })
	page, err := bctx.NewPage()
	if err != nil {
		t.Fatal(err)
	}
	page.SetDefaultTimeout(ms(patience(10 * time.Second)))
	var msgs []string
	page.On("console", func(m playwright.ConsoleMessage) {
		if m.Type() == "error" {
			msgs = append(msgs, m.Text())
		}
	})
	page.On("pageerror", func(err error) { msgs = append(msgs, "page error: "+err.Error()) })
	t.Cleanup(func() {
		if t.Failed() && len(msgs) > 0 {
			t.Logf("browser console errors:\n%s", strings.Join(msgs, "\n"))
		}
	})
	return page
}
