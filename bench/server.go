package main

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// server is a running sweatpants binary.
type server struct {
	cmd     *exec.Cmd
	base    string // http://127.0.0.1:PORT
	dbPath  string
	logPath string
	exited  chan struct{} // closed once cmd.Wait returned
	waitErr error
}

// listenPrefix starts the line the server prints on stdout once it listens.
const listenPrefix = "listening on "

// startServer runs bin serving db, or without one a fresh SQLite database
// in dir, for browsers streams at once, and waits up to within for it to
// say where it listens. The
// server's log goes to dir/server.log, or dir/server-NAME.log for a node
// named name of several.
func startServer(bin, dir, name, db, durability string, browsers int, within time.Duration) (*server, error) {
	s := &server{
		dbPath:  cmp.Or(db, filepath.Join(dir, "bench.db")),
		logPath: filepath.Join(dir, "server.log"),
		exited:  make(chan struct{}),
	}
	if name != "" {
		s.logPath = filepath.Join(dir, "server-"+name+".log")
	}
	// Every simulated browser comes from loopback, one client address,
	// where real ones come from many: the limit of streams per address
	// (256 by default) is lifted to the number of browsers, or it would
	// refuse the 257th.
	args := []string{"serve", "--addr", "127.0.0.1:0", "--db", s.dbPath, "--log", "json", "--demo-pace", "0s",
		"--max-streams-per-client", strconv.Itoa(max(browsers, 1))}
	if durability != "" {
		args = append(args, "--durability", durability)
	}
	logFile, err := os.Create(s.logPath)
	if err != nil {
		return nil, err
	}
	defer logFile.Close() // the child has its own copy
	s.cmd = exec.Command(bin, args...)
	s.cmd.Env = append(os.Environ(), "SWEATPANTS_PROVIDER=offline")
	s.cmd.Stderr = logFile
	// A pipe of our own rather than StdoutPipe, so that reading it may
	// go on while Wait runs.
	stdout, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	s.cmd.Stdout = w
	err = s.cmd.Start()
	w.Close()
	if err != nil {
		stdout.Close()
		return nil, fmt.Errorf("start %s: %w", bin, err)
	}
	addrc := make(chan string, 1)
	go scanListening(stdout, addrc)
	go func() {
		s.waitErr = s.cmd.Wait()
		close(s.exited)
	}()

	timer := time.NewTimer(within)
	defer timer.Stop()
	select {
	case base := <-addrc:
		s.base = base
		return s, nil
	case <-s.exited:
		return nil, fmt.Errorf("server exited before listening (%v); its log:\n%s", s.waitErr, s.logTail(20))
	case <-timer.C:
		s.kill()
		return nil, fmt.Errorf("server did not print %q within %v; its log:\n%s", listenPrefix+"http://…", within, s.logTail(20))
	}
}

// scanListening reads the server's stdout, sends the URL of the first
// "listening on" line to addrc, and then drains the rest so the server
// never blocks writing to it.
func scanListening(stdout io.ReadCloser, addrc chan<- string) {
	defer stdout.Close()
	sc := bufio.NewScanner(stdout)
	sent := false
	for sc.Scan() {
		if url, ok := strings.CutPrefix(strings.TrimSpace(sc.Text()), listenPrefix); ok && !sent {
			addrc <- url
			sent = true
		}
	}
	_, _ = io.Copy(io.Discard, stdout)
}

// durability reads the durability the server says it runs with from its
// "serving" log line, or "" if there is no such line.
func (s *server) durability() string {
	data, err := os.ReadFile(s.logPath)
	if err != nil {
		return ""
	}
	for line := range bytes.Lines(data) {
		var rec struct {
			Msg        string `json:"msg"`
			Durability string `json:"durability"`
		}
		if json.Unmarshal(line, &rec) == nil && rec.Msg == "serving" {
			return rec.Durability
		}
	}
	return ""
}

// peakRSS reads the server's peak resident set size (VmHWM) from /proc, in
// bytes, or -1 if it cannot.
func (s *server) peakRSS() int64 {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", s.cmd.Process.Pid))
	if err != nil {
		return -1
	}
	for line := range strings.Lines(string(data)) {
		rest, ok := strings.CutPrefix(line, "VmHWM:")
		if !ok {
			continue
		}
		kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
		if err != nil {
			return -1
		}
		return kb << 10
	}
	return -1
}

// dbSizes returns the sizes of the database file and its write-ahead log;
// a file that does not exist counts as 0 bytes.
func (s *server) dbSizes() (db, wal int64) {
	return fileSize(s.dbPath), fileSize(s.dbPath + "-wal")
}

func fileSize(path string) int64 {
	fi, err := os.Stat(path)
	if err != nil {
		return 0
	}
	return fi.Size()
}

// stop asks the server to shut down with SIGTERM and waits up to within for
// it to exit, then kills it. It reports an unclean exit.
func (s *server) stop(within time.Duration) error {
	select {
	case <-s.exited:
		return fmt.Errorf("server had already exited: %v", s.waitErr)
	default:
	}
	if err := s.cmd.Process.Signal(syscall.SIGTERM); err != nil && !errors.Is(err, os.ErrProcessDone) {
		return err
	}
	timer := time.NewTimer(within)
	defer timer.Stop()
	select {
	case <-s.exited:
		if s.waitErr != nil {
			return fmt.Errorf("server exited uncleanly: %v", s.waitErr)
		}
		return nil
	case <-timer.C:
		s.kill()
		return fmt.Errorf("server did not stop within %v of SIGTERM; killed it", within)
	}
}

// cpu returns the CPU time, user and system, the server used in its whole
// life, or -1 while it runs.
func (s *server) cpu() time.Duration {
	select {
	case <-s.exited:
		return s.cmd.ProcessState.UserTime() + s.cmd.ProcessState.SystemTime()
	default:
		return -1
	}
}

// kill ends the server at once and waits for it.
func (s *server) kill() {
	_ = s.cmd.Process.Kill()
	<-s.exited
}

// logTail returns the last n lines of the server's log.
func (s *server) logTail(n int) string {
	data, err := os.ReadFile(s.logPath)
	if err != nil {
		return "(no log: " + err.Error() + ")"
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return "(empty)"
	}
	lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
