// Package mcpconn is the engine behind package mcpclient: the
// connections to the outside MCP servers a program uses, on the official
// Go SDK's client, each started by command (stdio) or reached by URL
// (Streamable HTTP) when first needed and again after it broke. It lists
// their tools as recorded calls of a turn and calls them, turns a
// server's questions (elicitation/create) into questions of the
// conversation and its progress into the turn's, and says how each
// server is for the settings page. An author names servers and hands a
// Loop a source (mcpclient); the program (package app) starts these and
// puts them in every turn's context (outsidetools.With).
package mcpconn

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sweatpants-go/sweatpants/internal/outsidetools"
	"github.com/sweatpants-go/sweatpants/mcpclient"
)

// Servers are the outside servers a program uses, each connected when
// first needed (Start connects them all at once) and again after it broke.
type Servers struct {
	list    []*conn
	starter *starter // starts the commands, so that they end with the program
}

// Options say who the program is to the servers.
type Options struct {
	// Name and Version are the program's, as its MCP client.
	Name, Version string
	Log           *slog.Logger
	// Replay never calls the servers, for a program that only replays
	// what turns recorded (the pre-deploy check): a listing or a call the
	// record lacks waits until its turn is stopped, as a question of the
	// live turn would.
	Replay bool
}

// New returns the servers, not connected yet; a server that fails its
// Check is an error naming it.
func New(servers []mcpclient.Server, opts Options) (*Servers, error) {
	if opts.Log == nil {
		opts.Log = slog.New(slog.DiscardHandler)
	}
	impl := &mcp.Implementation{Name: opts.Name, Version: opts.Version}
	s := &Servers{starter: &starter{}}
	seen := map[string]bool{}
	for _, cfg := range servers {
		if err := cfg.Check(); err != nil {
			return nil, err
		}
		if seen[cfg.Name] {
			return nil, fmt.Errorf("two servers are named %s", cfg.Name)
		}
		seen[cfg.Name] = true
		c := newConn(cfg, impl, opts.Log, s.starter)
		c.replay = opts.Replay
		s.list = append(s.list, c)
	}
	return s, nil
}

// Len is how many servers there are.
func (s *Servers) Len() int {
	if s == nil {
		return 0
	}
	return len(s.list)
}

// Start connects to every server and lists its tools, at once, in the
// background: the settings page then shows how each went. A server that
// fails is tried again when a turn needs it.
func (s *Servers) Start(ctx context.Context) {
	if s == nil {
		return
	}
	for _, c := range s.list {
		go func() {
			if _, err := c.list(ctx); err != nil {
				c.log.Warn("MCP server unavailable", "server", c.cfg.Name, "err", err)
			}
		}()
	}
}

// Close ends every connection; a command a server runs as is ended.
func (s *Servers) Close() {
	if s == nil {
		return
	}
	var wg sync.WaitGroup
	for _, c := range s.list {
		wg.Go(c.close)
	}
	wg.Wait()
	s.starter.close()
}

// Status is a server's connection as the settings page shows it.
type Status string

const (
	NotConnected Status = "not connected"
	Connected    Status = "connected"
	Failed       Status = "failed"
)

// State is how a server is, and the tools it listed last.
type State struct {
	Status Status
	Err    string    // why it failed
	Since  time.Time // when it came to be so
}

// ServerState is one server's settings (no token, no environment), state
// and tools, for the settings page.
type ServerState struct {
	Name, Where string
	State
	Tools []ToolDesc
}

// States lists the servers as they are now, in the order of their names.
func (s *Servers) States() []ServerState {
	if s == nil {
		return nil
	}
	out := make([]ServerState, len(s.list))
	for i, c := range s.list {
		c.mu.Lock()
		out[i] = ServerState{Name: c.cfg.Name, Where: c.cfg.Where(), State: c.state, Tools: c.tools}
		c.mu.Unlock()
	}
	return out
}

// get returns the server named name.
func (s *Servers) get(name string) *conn {
	for _, c := range s.list {
		if c.cfg.Name == name {
			return c
		}
	}
	return nil
}

// timeout is how long connecting to s may take, and a call may go without
// a word from it: its Timeout, or mcpclient.DefaultTimeout.
func timeout(s mcpclient.Server) time.Duration {
	if s.Timeout <= 0 {
		return mcpclient.DefaultTimeout
	}
	return time.Duration(s.Timeout)
}

// With returns ctx in which the outside servers are s: those a Loop's
// source (mcpclient.All, Named) takes its tools from.
func With(ctx context.Context, s *Servers) context.Context {
	return outsidetools.With(ctx, s)
}

// From returns the servers ctx holds; nil for none.
func From(ctx context.Context) *Servers {
	s, _ := outsidetools.From(ctx).(*Servers)
	return s
}
