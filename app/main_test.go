package app

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"

	"github.com/sweatpants-go/sweatpants/internal/calls"
	"github.com/sweatpants-go/sweatpants/internal/chat"
	"github.com/sweatpants-go/sweatpants/internal/store"
	"github.com/sweatpants-go/sweatpants/internal/transport"
)

// runArgs runs the tests' application with args and an empty
// environment, returning what it printed and its error.
func runArgs(t *testing.T, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	return runWith(testConfig(), args...)
}

func TestHelp(t *testing.T) {
	tests := []struct {
		args []string
		want []string // in the usage printed
	}{
		{[]string{"--help"}, []string{"greeter [serve] [flags]", "greeter chat [flags]", "greeter version", "with the assistants greeter and echo"}},
		{[]string{"-h"}, []string{"greeter [serve] [flags]"}},
		{[]string{"help"}, []string{"greeter [serve] [flags]"}},
		{[]string{"serve", "--help"}, []string{"Usage: greeter serve [flags]", "--addr (SWEATPANTS_ADDR, default 127.0.0.1:8080)", "--max-body (SWEATPANTS_MAX_BODY",
			"--db (SWEATPANTS_DB, default data/greeter.db)"}},
		{[]string{"serve", "-h"}, []string{"Usage: greeter serve [flags]"}},
		{[]string{"help", "serve"}, []string{"Usage: greeter serve [flags]", "--durability (SWEATPANTS_DURABILITY, default process-crash)"}},
		{[]string{"chat", "--help"}, []string{"Usage: greeter chat [flags]", "Talks to the assistants greeter and echo at the terminal",
			"--db (SWEATPANTS_DB, default data/terminal.db)", "--session (SWEATPANTS_SESSION", "the assistant to talk to: greeter or echo (default: greeter)"}},
		{[]string{"help", "chat"}, []string{"Usage: greeter chat [flags]"}},
		{[]string{"help", "version"}, []string{"Usage: greeter version"}},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			out, errOut, err := runArgs(t, tt.args...)
			if err != nil {
				t.Fatalf("help failed: %v", err)
			}
			for _, w := range tt.want {
				if !strings.Contains(out, w) {
					t.Errorf("the usage lacks %q:\n%s", w, out)
				}
			}
			if errOut != "" {
				t.Errorf("help wrote to stderr: %s", errOut)
			}
		})
	}
}

func TestCommandLineRefusals(t *testing.T) {
	tests := []struct {
		args    []string
		wantErr string
		cmd     string // whose help the refusal points at
	}{
		{[]string{"start"}, `unknown command "start"`, ""},
		{[]string{"help", "start"}, `unknown command "start"`, ""},
		{[]string{"version", "--short"}, "version takes no arguments", ""},
		{[]string{"serve", "extra", "--addr", "127.0.0.1:0"}, `serve takes no arguments, only flags: "extra" is not a flag`, "serve"},
		{[]string{"--addr", "127.0.0.1:0", "extra"}, `"extra" is not a flag`, "serve"},
		{[]string{"serve", "--log", "yaml"}, `invalid value "yaml" for flag -log: want text or json`, "serve"},
		{[]string{"chat", "hello"}, `chat takes no arguments, only flags: "hello" is not a flag`, "chat"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			_, _, err := runArgs(t, tt.args...)
			var usage *usageError
			if !errors.As(err, &usage) || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("got error %v, want a usage error with %q", err, tt.wantErr)
			}
			if usage.cmd != tt.cmd {
				t.Errorf("the refusal points at the help of %q, want %q", usage.cmd, tt.cmd)
			}
		})
	}
}

func TestDescribeBuild(t *testing.T) {
	tests := []struct {
		name string
		info debug.BuildInfo
		want string
	}{
		{"a release", debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "v1.2.3"}},
			"sweatpants v1.2.3, built with go1.26.8"},
		{"a checkout with changes", debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "v0.0.0-20260101000000-36ec0df12345+dirty"},
			Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "36ec0df1234567890abcdef"}, {Key: "vcs.time", Value: "2026-01-01T00:00:00Z"}, {Key: "vcs.modified", Value: "true"}}},
			"sweatpants v0.0.0-20260101000000-36ec0df12345+dirty commit 36ec0df12345 of 2026-01-01T00:00:00Z, modified, built with go1.26.8"},
		{"a clean checkout", debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "(devel)"},
			Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "abc"}, {Key: "vcs.modified", Value: "false"}}},
			"sweatpants (devel) commit abc, built with go1.26.8"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := describeBuild("sweatpants", &tt.info); got != tt.want {
				t.Errorf("got  %q\nwant %q", got, tt.want)
			}
		})
	}
}

// TestDescribeAnApplicationsBuild: an application's version names the
// Sweatpants it was built with, from a release or a directory.
func TestDescribeAnApplicationsBuild(t *testing.T) {
	main := debug.Module{Path: "example.com/greeter", Version: "v1.0.0"}
	tests := []struct {
		name string
		dep  *debug.Module
		want string
	}{
		{"a release", &debug.Module{Path: modulePath, Version: "v0.4.0"}, "greeter v1.0.0, with Sweatpants v0.4.0, built with go1.26.8"},
		{"a checkout", &debug.Module{Path: modulePath, Version: "v0.0.0", Replace: &debug.Module{Path: "../sweatpants", Version: "(devel)"}},
			"greeter v1.0.0, with Sweatpants from ../sweatpants, built with go1.26.8"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			info := debug.BuildInfo{GoVersion: "go1.26.8", Main: main, Deps: []*debug.Module{{Path: "golang.org/x/net", Version: "v0.61.0"}, tt.dep}}
			if got := describeBuild("greeter", &info); got != tt.want {
				t.Errorf("got  %q\nwant %q", got, tt.want)
			}
		})
	}
}

func TestVersion(t *testing.T) {
	for _, args := range [][]string{{"version"}, {"--version"}} {
		out, _, err := runArgs(t, args...)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(out, testName+" ") || !strings.Contains(out, "go1.") {
			t.Errorf("%v printed %q, want the version and the Go version", args, out)
		}
	}
}

// TestOneProcessPerDatabase: while one process holds a database, another
// is refused with the holder's pid; once it lets go, the next one may.
func TestOneProcessPerDatabase(t *testing.T) {
	path := filepath.Join(t.TempDir(), "data", "x.db")
	release, err := lockDB(testName, path)
	if err != nil {
		t.Fatal(err)
	}
	_, err = lockDB(testName, path)
	want := "another greeter process (pid " + strconv.Itoa(os.Getpid()) + ") is using the database " + path
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("a second lock: got %v, want %q", err, want)
	}
	// The server refuses to start on it too.
	needDatastar(t)
	_, _, err = runArgs(t, "serve", "--addr", "127.0.0.1:0", "--db", path)
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("a second server: got %v, want %q", err, want)
	}
	release()
	again, err := lockDB(testName, path)
	if err != nil {
		t.Fatalf("after the first let go: %v", err)
	}
	again()
}

// TestDatabaseErrorsNameThePath: a file that is no database is refused,
// naming the file and what is wrong with it.
func TestDatabaseErrorsNameThePath(t *testing.T) {
	dir := t.TempDir()
	notDB := filepath.Join(dir, "notes.db")
	if err := os.WriteFile(notDB, []byte(strings.Repeat("these are my notes, not a database\n", 200)), 0o644); err != nil {
		t.Fatal(err)
	}
	blocked := filepath.Join(dir, "file", "x.db") // its directory would be a file
	if err := os.WriteFile(filepath.Join(dir, "file"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		path  string
		cause string
	}{
		{notDB, "not a database"},
		{blocked, "not a directory"},
	}
	for _, tt := range tests {
		for _, cmd := range []string{"serve", "chat"} {
			if cmd == "serve" && !haveDatastar() {
				continue
			}
			_, _, err := runArgs(t, cmd, "--addr", "127.0.0.1:0", "--db", tt.path)
			if cmd == "chat" {
				_, _, err = runArgs(t, cmd, "--db", tt.path)
			}
			if err == nil || !strings.Contains(err.Error(), tt.path) || !strings.Contains(err.Error(), tt.cause) {
				t.Errorf("%s --db %s: got %v, want the path and %q", cmd, tt.path, err, tt.cause)
			}
		}
	}
	// The file that is no database is left as it was.
	if b, _ := os.ReadFile(notDB); !strings.HasPrefix(string(b), "these are my notes") {
		t.Errorf("the file was changed")
	}
}

// TestReady: /readyz answers 200 while the database answers, 503 once it
// does not.
func TestReady(t *testing.T) {
	addr := startServer(t)
	if code := get(t, "http://"+addr+"/readyz"); code != http.StatusOK {
		t.Errorf("a serving server: /readyz = %d, want 200", code)
	}

	p := newProgram(testConfig(), func(string) string { return "" }, nil, io.Discard, io.Discard)
	o, err := p.open(context.Background(), "serve", filepath.Join(t.TempDir(), "x.db"), nil, defaultContextTokens, store.Options{}, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	defer o.close()
	app, db := o.chat, o.db
	svc := chat.New(app)
	defer svc.Close()
	srv := httptest.NewServer(transport.NewServer(transport.Config{Chat: readyChat{svc, db}, Calls: calls.New(db, svc), Log: app.Log}))
	defer srv.Close()
	if code := get(t, srv.URL+"/readyz"); code != http.StatusOK {
		t.Errorf("an open database: /readyz = %d, want 200", code)
	}
	db.Close()
	if code := get(t, srv.URL+"/readyz"); code != http.StatusServiceUnavailable {
		t.Errorf("a closed database: /readyz = %d, want 503", code)
	}
	if code := get(t, srv.URL+"/healthz"); code != http.StatusOK {
		t.Errorf("a closed database: /healthz = %d, want 200 (the process still serves)", code)
	}
}

func get(t *testing.T, url string) int {
	t.Helper()
	res, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	return res.StatusCode
}
