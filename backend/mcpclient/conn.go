package mcpclient

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// conn is the program's connection to one outside server, made when it is
// first needed and made again after it broke.
//
// Calls take turns: one call at a time per server. A server's questions
// (elicitation/create) and progress arrive at the SDK's handlers with no
// sign of the call that caused them — over stdio there is none to give,
// and the SDK hands the handlers the session's context, not the call's —
// so the call that runs when they arrive is the one they belong to. A
// progress token per call would tie progress to its call, but not
// questions; one call at a time ties both, and a turn's calls of one
// server are seldom many at once. The progress token is still checked, so
// that a late notification of an ended call is not shown on the next.
type conn struct {
	cfg  Server
	impl *mcp.Implementation
	log  *slog.Logger
	// replay never connects (Options.Replay).
	replay bool

	turn chan struct{} // held by the call that runs

	mu      sync.Mutex
	session *mcp.ClientSession
	stderr  *tail // the command's last words, for a start that failed
	state   State
	closed  bool       // the program is done with the server: no new session
	current *running   // the call that runs, for the handlers
	tools   []ToolDesc // as listed last, for the settings page
}

// running is a call in progress, as the handlers see it.
type running struct {
	ctx   context.Context // the tool's context: its primitives, its scope
	token string          // the call's progress token
	// questions numbers the server's questions in the call; progress
	// shows its progress (see call).
	questions context.Context
	progress  context.Context
	quiet     *watchdog
}

func newConn(cfg Server, impl *mcp.Implementation, log *slog.Logger) *conn {
	return &conn{cfg: cfg, impl: impl, log: log, turn: make(chan struct{}, 1), state: State{Status: NotConnected}}
}

// connected returns the session, connecting first when there is none.
func (c *conn) connected(ctx context.Context) (*mcp.ClientSession, error) {
	if c.replay {
		<-ctx.Done()
		return nil, context.Cause(ctx)
	}
	c.mu.Lock()
	if s := c.session; s != nil {
		c.mu.Unlock()
		return s, nil
	}
	c.mu.Unlock()
	ctx, cancel := context.WithTimeout(ctx, c.cfg.timeout())
	defer cancel()
	client := mcp.NewClient(c.impl, &mcp.ClientOptions{
		ElicitationHandler:          c.elicit,
		ProgressNotificationHandler: c.progressed,
		Capabilities:                &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{Form: &mcp.FormElicitationCapabilities{}}},
	})
	transport, stderr := c.transport()
	s, err := client.Connect(ctx, transport, nil)
	if err != nil {
		err = c.failed(connectError(c.cfg, ctx, err, stderr))
		return nil, err
	}
	c.mu.Lock()
	if c.closed { // closed while connecting: the session must not outlive it
		c.mu.Unlock()
		s.Close()
		return nil, fmt.Errorf("the MCP server %s is closed: the program is stopping", c.cfg.Name)
	}
	c.session, c.stderr = s, stderr
	c.state = State{Status: Connected, Since: time.Now()}
	c.mu.Unlock()
	go c.watch(s)
	return s, nil
}

// watch forgets s when it ends (the command exited, the server went
// away), so that the next call connects again.
func (c *conn) watch(s *mcp.ClientSession) {
	err := s.Wait()
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.session != s {
		return
	}
	c.session = nil
	if c.state.Status == Connected {
		why := "the connection closed"
		if err != nil {
			why = err.Error()
		}
		if c.stderr != nil && c.stderr.String() != "" {
			why += ": " + c.stderr.String()
		}
		c.state = State{Status: Failed, Err: fmt.Sprintf("the server %s went away (%s)", c.cfg.Name, why), Since: time.Now()}
	}
}

// failed records err as the server's state, drops the session and returns
// err. The session is closed on the side: closing waits on the server
// (its command's exit, its answer to the session's end), and a server
// that failed may never give it, while the turn is owed its error now.
func (c *conn) failed(err error) error {
	c.mu.Lock()
	s := c.session
	c.session = nil
	c.state = State{Status: Failed, Err: err.Error(), Since: time.Now()}
	c.mu.Unlock()
	if s != nil {
		go s.Close()
	}
	return err
}

// close ends the connection, for good.
func (c *conn) close() {
	c.mu.Lock()
	s := c.session
	c.session, c.closed = nil, true
	c.state = State{Status: NotConnected}
	c.mu.Unlock()
	if s != nil {
		s.Close()
	}
}

// transport is how to reach the server, and where a command's stderr
// goes.
func (c *conn) transport() (mcp.Transport, *tail) {
	if c.cfg.URL != "" {
		client := &http.Client{Transport: bearer{token: c.cfg.Token, next: http.DefaultTransport}}
		return &mcp.StreamableClientTransport{Endpoint: c.cfg.URL, HTTPClient: client}, nil
	}
	// Not exec.CommandContext: the command outlives the context it is
	// started in, and is ended by the connection's close.
	cmd := exec.Command(c.cfg.Command, c.cfg.Args...)
	cmd.Env = os.Environ()
	for k, v := range c.cfg.Env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	stderr := &tail{}
	cmd.Stderr = stderr
	return &mcp.CommandTransport{Command: cmd, TerminateDuration: time.Second}, stderr
}

// connectError says why connecting to cfg failed, in words for a user.
func connectError(cfg Server, ctx context.Context, err error, stderr *tail) error {
	var why string
	switch {
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		why = fmt.Sprintf("it did not answer within %s", cfg.timeout())
	case errors.Is(err, exec.ErrNotFound) || errors.Is(err, os.ErrNotExist):
		why = fmt.Sprintf("the command %q was not found", cfg.Command)
	default:
		why = err.Error()
	}
	if stderr != nil && stderr.String() != "" {
		why += "; it said: " + stderr.String()
	}
	return fmt.Errorf("could not connect to the MCP server %s at %s: %s", cfg.Name, cfg.Where(), why)
}

// bearer sends a bearer token with each request.
type bearer struct {
	token string
	next  http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	if b.token != "" {
		r = r.Clone(r.Context())
		r.Header.Set("Authorization", "Bearer "+b.token)
	}
	return b.next.RoundTrip(r)
}

// tail keeps the last few hundred bytes a command wrote to stderr.
type tail struct {
	mu  sync.Mutex
	buf []byte
}

const tailSize = 400

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if len(t.buf) > tailSize {
		t.buf = t.buf[len(t.buf)-tailSize:]
	}
	return len(p), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return strings.Join(strings.Fields(string(t.buf)), " ")
}
