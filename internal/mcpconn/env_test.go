package mcpconn_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sweatpants-go/sweatpants/internal/mcpconn"
	"github.com/sweatpants-go/sweatpants/mcpclient"
)

// The environment and the life of a server started by command. The
// fixture is the paint server over stdio (this test binary run again),
// which writes its environment and its process id to the file reportEnv
// names, when that is set; as "linger" it goes on after its input ends,
// as a server with timers of its own does, so that only a signal ends it.

// reportEnv names the file the stdio paint server reports to.
const reportEnv = "MCPCLIENT_TEST_REPORT"

// hostEnv makes this test binary a program that uses the lingering paint
// server and waits to be killed (host); its value is the folder the
// server reports to.
const hostEnv = "MCPCLIENT_TEST_HOST"

// serveStdio is the paint server over stdio, behaving as behave says.
func serveStdio(behave string) int {
	if file := os.Getenv(reportEnv); file != "" {
		report := fmt.Sprintf("pid=%d\n%s\n", os.Getpid(), strings.Join(os.Environ(), "\n"))
		// Written whole, then renamed, so that a reader never sees half.
		if err := os.WriteFile(file+".tmp", []byte(report), 0o600); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		if err := os.Rename(file+".tmp", file); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
	}
	var n counts
	server := paintServer(&n, behave, nil)
	if strings.HasPrefix(behave, "titled") {
		server = titledServer(behave)
	}
	err := server.Run(context.Background(), &mcp.StdioTransport{})
	if behave == "linger" {
		select {}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// host starts the lingering paint server, reporting to dir, and waits to
// be killed.
func host(dir string) int {
	srv := stdioPaint("linger")
	srv.Env[reportEnv] = filepath.Join(dir, "report")
	outside, err := mcpconn.New([]mcpclient.Server{srv}, mcpconn.Options{Name: "host", Version: "1"})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	outside.Start(context.Background())
	select {}
}

// report waits for the server's report in file: its process id and its
// environment.
func report(t *testing.T, file string) (int, map[string]string) {
	t.Helper()
	var data []byte
	waitFor(t, "the server's report", func() bool {
		var err error
		data, err = os.ReadFile(file)
		return err == nil
	})
	env := map[string]string{}
	pid := 0
	sc := bufio.NewScanner(strings.NewReader(string(data)))
	for sc.Scan() {
		k, v, _ := strings.Cut(sc.Text(), "=")
		if k == "pid" && pid == 0 {
			pid, _ = strconv.Atoi(v)
			continue
		}
		env[k] = v
	}
	return pid, env
}

// TestACommandGetsOnlyTheEnvironmentItIsGiven: a server started by
// command sees none of the program's secrets — its model's key, its own
// settings — but the few variables a program needs, those its
// configuration passes on by name, and its own env.
func TestACommandGetsOnlyTheEnvironmentItIsGiven(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "sk-secret")
	t.Setenv("SWEATPANTS_DATABASE_URL", "postgres://user:secret@db/app")
	t.Setenv("MCPCLIENT_TEST_PROXY", "http://proxy.example:3128")
	t.Setenv("PATH", os.Getenv("PATH")+string(os.PathListSeparator)+"/opt/tools/bin")
	t.Setenv("HOME", t.TempDir())
	file := filepath.Join(t.TempDir(), "report")
	srv := stdioPaint("")
	srv.Env[reportEnv] = file
	srv.Env["LOG_LEVEL"] = "warn"
	srv.InheritEnv = []string{"MCPCLIENT_TEST_PROXY", "MCPCLIENT_TEST_UNSET"}
	outside, err := mcpconn.New([]mcpclient.Server{srv}, mcpconn.Options{Name: "test", Version: "1"})
	if err != nil {
		t.Fatal(err)
	}
	defer outside.Close()
	outside.Start(t.Context())
	_, env := report(t, file)

	for _, name := range []string{"OPENAI_API_KEY", "SWEATPANTS_DATABASE_URL", "MCPCLIENT_TEST_UNSET"} {
		if v, ok := env[name]; ok {
			t.Errorf("the server was given %s=%s", name, v)
		}
	}
	for name, want := range map[string]string{
		"PATH":                 os.Getenv("PATH"),
		"HOME":                 os.Getenv("HOME"),
		"LOG_LEVEL":            "warn",
		"MCPCLIENT_TEST_PROXY": "http://proxy.example:3128",
		stdioEnv:               "",
	} {
		if got, ok := env[name]; !ok || got != want {
			t.Errorf("the server's %s is %q (set: %v), want %q", name, got, ok, want)
		}
	}
	allowed := []string{"HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER", "LOG_LEVEL", "MCPCLIENT_TEST_PROXY", reportEnv, stdioEnv}
	var extra []string
	for name := range env {
		if !slices.Contains(allowed, name) {
			extra = append(extra, name)
		}
	}
	if len(extra) > 0 {
		slices.Sort(extra)
		t.Errorf("the server was given %q, which neither every program needs nor its configuration names", extra)
	}
}

// TestACommandEndsWhenTheProgramIsKilled: a program killed with -9 runs
// no clean-up, yet the server it started, which would live on after its
// input ends, ends with it.
func TestACommandEndsWhenTheProgramIsKilled(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("a server started by command ends with a killed program on Linux only (docs/mcp.md)")
	}
	dir := t.TempDir()
	prog := exec.Command(os.Args[0])
	prog.Env = append(os.Environ(), hostEnv+"="+dir)
	prog.Stderr = os.Stderr
	if err := prog.Start(); err != nil {
		t.Fatal(err)
	}
	pid, _ := report(t, filepath.Join(dir, "report"))
	if pid == 0 {
		t.Fatal("the server reported no process id")
	}
	t.Cleanup(func() { syscall.Kill(pid, syscall.SIGKILL) }) // a server the test failed to see end
	if !alive(pid) {
		t.Fatalf("the server %d is not running before the program is killed", pid)
	}
	if err := prog.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	var exit *exec.ExitError
	if err := prog.Wait(); !errors.As(err, &exit) {
		t.Fatalf("the program ended with %v, want killed", err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for alive(pid) {
		if time.Now().After(deadline) {
			t.Fatalf("the server %d still runs 10s after the program that started it was killed", pid)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// alive reports whether the process pid runs: it exists and has not
// ended (a process that ended stays a zombie until its new parent, which
// may never, collects it).
func alive(pid int) bool {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	// The state follows the command's name, in parentheses that the name
	// itself may hold.
	s := string(stat)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || i+2 >= len(s) || (s[i+2] != 'Z' && s[i+2] != 'X')
}
