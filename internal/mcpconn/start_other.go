//go:build !linux

package mcpconn

import (
	"errors"
	"os/exec"
	"sync"
)

// starter starts the servers' commands. Outside Linux a command has no
// parent-death signal, and is ended by the servers' close alone: closing
// its input, then signals (docs/mcp.md).
type starter struct {
	mu     sync.Mutex
	closed bool
}

// start runs fn, which starts cmd.
func (s *starter) start(_ *exec.Cmd, fn func()) error {
	s.mu.Lock()
	closed := s.closed
	s.mu.Unlock()
	if closed {
		return errors.New("the program is stopping")
	}
	fn()
	return nil
}

// close says no command starts after.
func (s *starter) close() {
	s.mu.Lock()
	s.closed = true
	s.mu.Unlock()
}
