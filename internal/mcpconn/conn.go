package mcpconn

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

	"github.com/sweatpants-go/sweatpants/mcpclient"
)

// conn is the program's connection to one outside server: sessions
// (links) made when a call needs one, kept for the next, and made again
// after one broke.
//
// A link runs one call at a time. A server's questions
// (elicitation/create) and progress arrive at the SDK's handlers with no
// sign of the call that caused them — over stdio there is none to give,
// and the SDK hands the handlers the session's context, not the call's —
// so the call its link runs when they arrive is the one they belong to. A
// progress token per call would tie progress to its call, but not
// questions; a link per call at a time ties both. Calls at once, of two
// conversations say, each take a link of their own (another process, for
// a command), so that a question one waits on for an hour holds no other
// call up. The progress token is still checked, so that a late
// notification of an ended call is not shown on the next.
type conn struct {
	cfg  mcpclient.Server
	impl *mcp.Implementation
	log  *slog.Logger
	// replay never connects (Options.Replay).
	replay bool
	// starter starts the server's command, if it has one.
	starter *starter

	mu     sync.Mutex
	idle   []*link        // links no call runs on
	open   map[*link]bool // links open, idle or not
	links  int            // links open or being made
	state  State
	closed bool       // the program is done with the server: no new link
	tools  []ToolDesc // as listed last, for the settings page
}

// maxLinks bounds the links to one server: calls beyond wait for one.
const maxLinks = 16

// link is one session with the server, and the call it runs.
type link struct {
	c       *conn
	session *mcp.ClientSession
	stderr  *tail // the command's last words, for a start that failed

	mu      sync.Mutex
	current *running // the call that runs, for the handlers
	broken  bool     // it failed or ended: not to be used again
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

func newConn(cfg mcpclient.Server, impl *mcp.Implementation, log *slog.Logger, st *starter) *conn {
	return &conn{cfg: cfg, impl: impl, log: log, starter: st, open: map[*link]bool{}, state: State{Status: NotConnected}}
}

// take returns a link for one call: an idle one, or a new one. The caller
// gives it back with give.
func (c *conn) take(ctx context.Context) (*link, error) {
	if c.replay {
		<-ctx.Done()
		return nil, context.Cause(ctx)
	}
	for {
		c.mu.Lock()
		if c.closed {
			c.mu.Unlock()
			return nil, fmt.Errorf("the MCP server %s is closed: the program is stopping", c.cfg.Name)
		}
		if n := len(c.idle); n > 0 {
			l := c.idle[n-1]
			c.idle = c.idle[:n-1]
			c.mu.Unlock()
			if l.usable() {
				return l, nil
			}
			c.drop(l)
			continue
		}
		if c.links < maxLinks {
			c.links++
			c.mu.Unlock()
			l, err := c.connect(ctx)
			if err != nil {
				c.mu.Lock()
				c.links--
				c.mu.Unlock()
			}
			return l, err
		}
		c.mu.Unlock()
		select { // every link busy: wait a moment for one
		case <-ctx.Done():
			return nil, context.Cause(ctx)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// give puts l back for the next call, or closes it if it broke.
func (c *conn) give(l *link) {
	c.mu.Lock()
	if l.usable() && !c.closed {
		c.idle = append(c.idle, l)
		c.mu.Unlock()
		return
	}
	c.mu.Unlock()
	c.drop(l)
}

// drop forgets l and closes it on the side: closing waits on the server
// (its command's exit, its answer to the session's end), and a server
// that failed may never give it, while the turn is owed its error now.
func (c *conn) drop(l *link) {
	c.mu.Lock()
	c.links--
	delete(c.open, l)
	c.mu.Unlock()
	l.mu.Lock()
	l.broken = true
	l.mu.Unlock()
	go l.session.Close()
}

func (l *link) usable() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return !l.broken
}

// connect makes a new link, within the server's timeout.
func (c *conn) connect(ctx context.Context) (*link, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout(c.cfg))
	defer cancel()
	l := &link{c: c}
	client := mcp.NewClient(c.impl, &mcp.ClientOptions{
		ElicitationHandler:          l.elicit,
		ProgressNotificationHandler: l.progressed,
		Capabilities:                &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{Form: &mcp.FormElicitationCapabilities{}}},
	})
	transport, stderr := c.transport()
	s, err := client.Connect(ctx, transport, nil)
	if err != nil {
		return nil, c.failed(connectError(c.cfg, ctx, err, stderr))
	}
	l.session, l.stderr = s, stderr
	c.mu.Lock()
	if c.closed { // closed while connecting: the link must not outlive it
		c.mu.Unlock()
		s.Close()
		return nil, fmt.Errorf("the MCP server %s is closed: the program is stopping", c.cfg.Name)
	}
	c.open[l] = true
	c.state = State{Status: Connected, Since: time.Now()}
	c.mu.Unlock()
	go l.watch()
	return l, nil
}

// watch marks l broken when its session ends (the command exited, the
// server went away), and says so in the server's state unless the
// program closed it.
func (l *link) watch() {
	err := l.session.Wait()
	l.mu.Lock()
	closedByUs := l.broken
	l.broken = true
	l.mu.Unlock()
	if closedByUs {
		return
	}
	why := "the connection closed"
	if err != nil {
		why = err.Error()
	}
	if l.stderr != nil && l.stderr.String() != "" {
		why += ": " + l.stderr.String()
	}
	l.c.failed(fmt.Errorf("the server %s went away (%s)", l.c.cfg.Name, why))
}

// failed records err as the server's state and returns it.
func (c *conn) failed(err error) error {
	c.mu.Lock()
	if !c.closed {
		c.state = State{Status: Failed, Err: err.Error(), Since: time.Now()}
	}
	c.mu.Unlock()
	return err
}

// close ends every link, for good, those a call still runs on included:
// their calls fail, and the server is told the session ended.
func (c *conn) close() {
	c.mu.Lock()
	open := c.open
	c.idle, c.open, c.closed = nil, map[*link]bool{}, true
	c.state = State{Status: NotConnected}
	c.mu.Unlock()
	var wg sync.WaitGroup
	for l := range open {
		l.breaks()
		wg.Go(func() { l.session.Close() })
	}
	wg.Wait()
}

// transport is how to reach the server, and where a command's stderr
// goes.
func (c *conn) transport() (mcp.Transport, *tail) {
	if c.cfg.URL != "" {
		client := &http.Client{Transport: bearer{token: c.cfg.Token, next: orderedBodies{next: http.DefaultTransport}}}
		return &mcp.StreamableClientTransport{Endpoint: c.cfg.URL, HTTPClient: client}, nil
	}
	// Not exec.CommandContext: the command outlives the context it is
	// started in, and is ended by the connection's close.
	cmd := exec.Command(c.cfg.Command, c.cfg.Args...)
	cmd.Env = environ(c.cfg, os.LookupEnv)
	stderr := &tail{}
	cmd.Stderr = stderr
	return &command{CommandTransport: mcp.CommandTransport{Command: cmd, TerminateDuration: time.Second}, starter: c.starter}, stderr
}

// command is the SDK's transport to a command, which it starts through
// the starter, so that it ends with the program, and whose questions keep
// their order (orderedConn).
type command struct {
	mcp.CommandTransport
	starter *starter
}

func (t *command) Connect(ctx context.Context) (mcp.Connection, error) {
	var conn mcp.Connection
	var err error
	if serr := t.starter.start(t.Command, func() { conn, err = t.CommandTransport.Connect(ctx) }); serr != nil {
		return nil, serr
	}
	if err != nil {
		return nil, err
	}
	return orderedConn{conn}, nil
}

// connectError says why connecting to cfg failed, in words for a user.
func connectError(cfg mcpclient.Server, ctx context.Context, err error, stderr *tail) error {
	var why string
	switch {
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		why = fmt.Sprintf("it did not answer within %s", timeout(cfg))
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
