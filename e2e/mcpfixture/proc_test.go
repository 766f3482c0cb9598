package main

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// proc runs the fixture program on one database and one address across
// restarts.
type proc struct {
	t    *testing.T
	bin  string
	db   string
	addr string // 127.0.0.1:0 until the first start
	url  string

	mu   sync.Mutex
	log  bytes.Buffer
	cmd  *exec.Cmd
	done chan struct{}
}

// newProc prepares the fixture bin on a fresh database; it is stopped when
// the test ends, its log shown if the test failed.
func newProc(t *testing.T, bin string) *proc {
	p := &proc{t: t, bin: bin, db: filepath.Join(t.TempDir(), "fixture.db"), addr: "127.0.0.1:0"}
	t.Cleanup(func() {
		p.stop(os.Interrupt)
		if t.Failed() {
			p.mu.Lock()
			t.Logf("the fixture's log, its warnings and errors:\n%s", notable(p.log.String()))
			p.mu.Unlock()
		}
	})
	return p
}

// start starts the program and waits until it listens.
func (p *proc) start() *proc {
	p.t.Helper()
	cmd := exec.Command(p.bin, "serve", "--addr", p.addr, "--db", p.db)
	cmd.Env = append(os.Environ(), "SWEATPANTS_PROVIDER=offline")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		p.t.Fatal(err)
	}
	cmd.Stderr = writerFunc(func(b []byte) (int, error) {
		p.mu.Lock()
		defer p.mu.Unlock()
		return p.log.Write(b)
	})
	if err := cmd.Start(); err != nil {
		p.t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	p.mu.Lock()
	p.cmd, p.done = cmd, done
	p.mu.Unlock()
	listening := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if u, ok := strings.CutPrefix(sc.Text(), "listening on "); ok {
				listening <- u
			}
		}
	}()
	select {
	case u := <-listening:
		p.url, p.addr = u, strings.TrimPrefix(u, "http://")
	case <-done:
		p.t.Fatalf("the fixture exited before listening:\n%s", p.log.String())
	case <-time.After(30 * time.Second):
		p.t.Fatal("the fixture did not start listening")
	}
	return p
}

// stop signals the program and waits until it exits.
func (p *proc) stop(sig os.Signal) {
	p.mu.Lock()
	cmd, done := p.cmd, p.done
	p.mu.Unlock()
	if cmd == nil {
		return
	}
	cmd.Process.Signal(sig)
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		cmd.Process.Kill()
		<-done
	}
}

// kill kills the program with SIGKILL: nothing of it runs after.
func (p *proc) kill() { p.stop(syscall.SIGKILL) }
