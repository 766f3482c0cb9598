//go:build linux

package mcpconn

import (
	"errors"
	"os/exec"
	"runtime"
	"sync"
	"syscall"
)

// starter starts the servers' commands so that each is ended when the
// program is, however it ends (kill -9 included): Linux sends a process
// its parent-death signal (Pdeathsig) when the thread that started it
// ends, and every command is started from one goroutine locked to its OS
// thread for the servers' whole life. A command started from any other
// goroutine would be killed the day its thread happened to end, which
// the Go runtime does when a goroutine locked to it returns.
type starter struct {
	mu     sync.Mutex
	jobs   chan func()
	closed bool
}

// start runs fn, which starts cmd, on the starter's thread, having set
// cmd to be killed when that thread ends.
func (s *starter) start(cmd *exec.Cmd, fn func()) error {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL
	// The lock is held until fn is done, so that close never closes the
	// jobs under a start.
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return errors.New("the program is stopping")
	}
	if s.jobs == nil {
		s.jobs = make(chan func())
		go s.serve(s.jobs)
	}
	done := make(chan struct{})
	s.jobs <- func() { fn(); close(done) }
	<-done
	return nil
}

// serve runs the jobs on its own thread until they end. It returns still
// locked, so that its thread ends with it: a command still running then
// (one whose close was left to the background) is killed.
func (s *starter) serve(jobs <-chan func()) {
	runtime.LockOSThread()
	for fn := range jobs {
		fn()
	}
}

// close ends the starter's thread, and with it any command still running:
// the caller has closed the servers first. No command starts after.
func (s *starter) close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.closed && s.jobs != nil {
		close(s.jobs)
	}
	s.closed = true
}
