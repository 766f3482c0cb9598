// Package pgtest runs a throwaway PostgreSQL server for tests: one per test
// binary, in a temporary directory, reached only through a Unix socket, and
// an isolated schema for each test on it.
package pgtest

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
)

// ErrNotFound says PostgreSQL's programs are not on this machine;
// scripts/pg-deps.sh installs them.
var ErrNotFound = errors.New("postgresql not found: no initdb and postgres on PATH or under /usr/lib/postgresql/*/bin (run scripts/pg-deps.sh)")

// Server is a running throwaway PostgreSQL server. Its data and its socket
// are in one temporary directory, removed by Stop.
type Server struct {
	opts   Options
	dir    string
	cmd    *exec.Cmd
	exited chan struct{}
	err    error // why the server exited; read after exited is closed
}

// Options says how StartWith runs its server.
type Options struct {
	// Durable keeps fsync, synchronous_commit and full_page_writes at
	// PostgreSQL's defaults, so that a commit is on disk before it is
	// acknowledged, as on a real server: what a benchmark of commits
	// needs. Without it they are off, which is right for tests (the data
	// dies with the test binary) and several times faster.
	Durable bool
}

// Start creates a cluster in a new temporary directory and starts a server
// on it that listens only on a Unix socket in that directory, with fsync
// off (see Options). It returns ErrNotFound when PostgreSQL is not
// installed.
func Start(ctx context.Context) (*Server, error) {
	return StartWith(ctx, Options{})
}

// StartWith is Start with opts.
func StartWith(ctx context.Context, opts Options) (*Server, error) {
	bin, err := findBin()
	if err != nil {
		return nil, err
	}
	// The directory's name is short because the socket's path inside it
	// must fit in a sockaddr_un (107 bytes).
	dir, err := os.MkdirTemp("", "sweatpants-pg-")
	if err != nil {
		return nil, fmt.Errorf("pgtest: make the server's directory: %w", err)
	}
	s := &Server{opts: opts, dir: dir, exited: make(chan struct{})}
	if err := s.start(ctx, bin); err != nil {
		s.Stop()
		return nil, err
	}
	return s, nil
}

func (s *Server) start(ctx context.Context, bin string) error {
	cred, err := credential()
	if err != nil {
		return err
	}
	if cred != nil {
		if err := os.Chown(s.dir, int(cred.Uid), int(cred.Gid)); err != nil {
			return fmt.Errorf("pgtest: hand the server's directory to postgres: %w", err)
		}
	}
	data := filepath.Join(s.dir, "data")
	// initdb skips fsync (--no-sync) because the cluster dies with the test
	// binary; for the same reason the server runs with fsync off unless it
	// is to be durable. A durable server's files are synced at its first
	// checkpoint, so initdb may skip it either way.
	initdb := exec.CommandContext(ctx, filepath.Join(bin, "initdb"),
		"-D", data, "-A", "trust", "-U", "postgres", "-E", "UTF8", "--locale=C", "--no-sync")
	initdb.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
	if out, err := initdb.CombinedOutput(); err != nil {
		return fmt.Errorf("pgtest: initdb: %w\n%s", err, out)
	}
	// The server is started directly rather than through pg_ctl so that it
	// is the test binary's child: Pdeathsig kills it if the binary dies
	// without stopping it (a test timeout's panic), leaving no stray server.
	args := []string{"-D", data, "-k", s.dir, "-c", "listen_addresses=", "-c", "max_connections=200"}
	if !s.opts.Durable {
		args = append(args, "-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off")
	}
	s.cmd = exec.Command(filepath.Join(bin, "postgres"), args...)
	s.cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred, Pdeathsig: syscall.SIGKILL}
	log, err := os.Create(filepath.Join(s.dir, "server.log"))
	if err != nil {
		return fmt.Errorf("pgtest: create the server's log: %w", err)
	}
	defer log.Close()
	s.cmd.Stdout, s.cmd.Stderr = log, log
	if err := s.cmd.Start(); err != nil {
		return fmt.Errorf("pgtest: start postgres: %w", err)
	}
	go func() {
		s.err = s.cmd.Wait()
		close(s.exited)
	}()
	return s.waitReady(ctx)
}

// waitReady connects until the server answers, it exits, or 30 seconds pass.
func (s *Server) waitReady(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	for {
		conn, err := pgx.Connect(ctx, s.ConnString("postgres", ""))
		if err == nil {
			return conn.Close(ctx)
		}
		select {
		case <-s.exited:
			out, _ := os.ReadFile(filepath.Join(s.dir, "server.log"))
			return fmt.Errorf("pgtest: postgres exited while starting: %v\n%s", s.err, out)
		case <-ctx.Done():
			return fmt.Errorf("pgtest: postgres not ready: %w", err)
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// Pid is the server's process id (the postmaster, whose children are its
// connections' backends).
func (s *Server) Pid() int { return s.cmd.Process.Pid }

// Dir is the server's directory: its data and its socket.
func (s *Server) Dir() string { return s.dir }

// ConnString is a pgx connection URL for database db on the server, with
// search_path set to schema unless schema is empty.
func (s *Server) ConnString(db, schema string) string {
	q := url.Values{"host": {s.dir}, "sslmode": {"disable"}}
	if schema != "" {
		q.Set("search_path", schema)
	}
	return (&url.URL{Scheme: "postgres", User: url.User("postgres"), Path: "/" + db, RawQuery: q.Encode()}).String()
}

// Stop shuts the server down (a fast shutdown: sessions are disconnected)
// and removes its directory.
func (s *Server) Stop() error {
	var err error
	if s.cmd != nil && s.cmd.Process != nil {
		select {
		case <-s.exited:
		default:
			if serr := s.cmd.Process.Signal(syscall.SIGINT); serr != nil {
				err = fmt.Errorf("pgtest: stop postgres: %w", serr)
			}
			select {
			case <-s.exited:
			case <-time.After(30 * time.Second):
				s.cmd.Process.Kill()
				<-s.exited
			}
		}
	}
	if rerr := os.RemoveAll(s.dir); rerr != nil && err == nil {
		err = fmt.Errorf("pgtest: remove the server's directory: %w", rerr)
	}
	return err
}

// findBin is the directory holding initdb and postgres: the one initdb on
// PATH resolves to, else the newest /usr/lib/postgresql/N/bin.
func findBin() (string, error) {
	var dirs []string
	if p, err := exec.LookPath("initdb"); err == nil {
		if real, err := filepath.EvalSymlinks(p); err == nil {
			dirs = append(dirs, filepath.Dir(real))
		}
	}
	found, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	sort.Slice(found, func(i, j int) bool { return version(found[i]) > version(found[j]) })
	dirs = append(dirs, found...)
	for _, d := range dirs {
		if executable(filepath.Join(d, "initdb")) && executable(filepath.Join(d, "postgres")) {
			return d, nil
		}
	}
	return "", ErrNotFound
}

// version is N of /usr/lib/postgresql/N/bin, or 0.
func version(bin string) int {
	n, _ := strconv.Atoi(filepath.Base(filepath.Dir(bin)))
	return n
}

func executable(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0
}

// credential is whom the server runs as: PostgreSQL refuses to run as root,
// so under root it runs as the postgres user; otherwise as the caller.
func credential() (*syscall.Credential, error) {
	if os.Geteuid() != 0 {
		return nil, nil
	}
	u, err := user.Lookup("postgres")
	if err != nil {
		return nil, fmt.Errorf("pgtest: running as root needs the postgres user: %w", err)
	}
	uid, err := strconv.ParseUint(u.Uid, 10, 32)
	if err != nil {
		return nil, fmt.Errorf("pgtest: postgres uid %q: %w", u.Uid, err)
	}
	gid, err := strconv.ParseUint(u.Gid, 10, 32)
	if err != nil {
		return nil, fmt.Errorf("pgtest: postgres gid %q: %w", u.Gid, err)
	}
	return &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}, nil
}
