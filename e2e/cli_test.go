package e2e

import (
	"context"
	"errors"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// runBin runs the binary with args to its end (at most 20 s: a command
// that should refuse to start and serves instead fails the test) and
// returns its stdout, stderr and exit status.
func runBin(t *testing.T, env []string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, binPath, args...)
	cmd.Env = append(append(os.Environ(), "SWEATPANTS_PROVIDER=offline"), env...)
	cmd.Dir = t.TempDir() // a default database would land here, not in the repository
	var out, errOut strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("%v did not end:\n%s%s", args, &out, &errOut)
	}
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Fatalf("run %v: %v", args, err)
	}
	return out.String(), errOut.String(), cmd.ProcessState.ExitCode()
}

func TestCLIHelpAndVersion(t *testing.T) {
	t.Parallel()
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"--help"}, "sweatpants chat [flags]"},
		{[]string{"-h"}, "sweatpants chat [flags]"},
		{[]string{"help"}, "sweatpants chat [flags]"},
		{[]string{"serve", "--help"}, "--addr (SWEATPANTS_ADDR, default 127.0.0.1:8080)"},
		{[]string{"help", "serve"}, "--log (SWEATPANTS_LOG, default text)"},
		{[]string{"chat", "-h"}, "--agent (SWEATPANTS_AGENT)"},
		{[]string{"version"}, "built with go1."},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			out, errOut, code := runBin(t, nil, tt.args...)
			if code != 0 || !strings.Contains(out, tt.want) {
				t.Errorf("exit %d, want 0, with %q in:\n%s\nstderr: %s", code, tt.want, out, errOut)
			}
		})
	}
}

func TestCLIRefusesBadInvocations(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "x.db")
	tests := []struct {
		name string
		env  []string
		args []string
		want string
	}{
		{"an argument before the flags", nil, []string{"serve", "extra", "--addr", "127.0.0.1:0", "--db", db}, `"extra" is not a flag`},
		{"a log format", nil, []string{"serve", "--log", "yaml", "--addr", "127.0.0.1:0", "--db", db}, `invalid value "yaml" for flag -log: want text or json`},
		{"a log format in the environment", []string{"SWEATPANTS_LOG=yaml"}, []string{"serve", "--addr", "127.0.0.1:0", "--db", db}, `invalid value "yaml" for SWEATPANTS_LOG`},
		{"a duration", []string{"SWEATPANTS_READ_TIMEOUT=30"}, []string{"--addr", "127.0.0.1:0", "--db", db}, `invalid value "30" for SWEATPANTS_READ_TIMEOUT`},
		{"a command", nil, []string{"start"}, `unknown command "start"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, errOut, code := runBin(t, tt.env, tt.args...)
			if code != 2 || !strings.Contains(errOut, tt.want) {
				t.Errorf("exit %d, want 2, with %q in stderr:\n%s\nstdout: %s", code, tt.want, errOut, out)
			}
			if strings.Contains(out, "listening on") {
				t.Errorf("it served:\n%s", out)
			}
		})
	}
}

// TestCLISecondProcessOnTheDatabase: while a server uses a database, a
// second server or a terminal chat on it is refused with the first one's
// pid, and the first serves on. A server killed outright leaves no lock
// behind: the next one starts on the same file.
func TestCLISecondProcessOnTheDatabase(t *testing.T) {
	t.Parallel()
	a := startApp(t)
	want := "another sweatpants process (pid " + strconv.Itoa(a.cmd.Process.Pid) + ") is using the database " + a.db
	for _, args := range [][]string{
		{"serve", "--addr", "127.0.0.1:0", "--db", a.db},
		{"chat", "--db", a.db},
	} {
		out, errOut, code := runBin(t, nil, args...)
		if code != 1 || !strings.Contains(errOut, want) {
			t.Errorf("%v: exit %d, want 1, with %q in stderr:\n%s\nstdout: %s", args, code, want, errOut, out)
		}
	}
	for _, path := range []string{"/healthz", "/readyz"} {
		res, err := http.Get(a.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != http.StatusOK {
			t.Errorf("the first server: %s = %d, want 200", path, res.StatusCode)
		}
	}
	a.stop(syscall.SIGKILL)
	a.start() // fails the test unless it serves
}
