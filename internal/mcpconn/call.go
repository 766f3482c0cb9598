package mcpconn

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sweatpants-go/sweatpants/internal/durable"
)

// errQuiet is a call the server let go quiet for longer than its timeout.
var errQuiet = errors.New("the server went quiet")

// call calls the server's tool with input (a JSON object) from ctx, the
// tool's context, and returns its result as the model reads it.
//
// The server's questions are numbered in a lane of the call's own, the
// first question of a call 1 whatever progress came before it, so that a
// call run again after a restart finds the answers the user gave before;
// its progress is numbered in a lane of this run's, since how much a
// server reports is not the same twice.
func (c *conn) call(ctx context.Context, tool string, input json.RawMessage) (json.RawMessage, error) {
	lanes := durable.Lanes(ctx)
	l, err := c.take(ctx)
	if err != nil {
		return nil, err
	}
	defer c.give(l)
	callCtx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	token := rand.Text()
	run := &running{ctx: ctx, token: token, questions: lanes(0),
		progress: durable.WithScope(ctx, durable.NextCall(lanes(1))+"run"+token),
		quiet:    newWatchdog(timeout(c.cfg), func() { cancel(errQuiet) })}
	l.mu.Lock()
	l.current = run
	l.mu.Unlock()
	defer func() {
		run.quiet.stop()
		l.mu.Lock()
		l.current = nil
		l.mu.Unlock()
	}()
	params := &mcp.CallToolParams{Name: tool, Arguments: input}
	params.SetProgressToken(token)
	res, err := l.session.CallTool(callCtx, params)
	switch {
	case err == nil:
	case ctx.Err() != nil:
		l.breaks()                     // the call may still run on the server: the link is not free
		return nil, context.Cause(ctx) // the turn stopped: not the server's fault
	case errors.Is(context.Cause(callCtx), errQuiet):
		l.breaks()
		c.failed(fmt.Errorf("the server %s did not answer a call of %s within %s", c.cfg.Name, tool, timeout(c.cfg)))
		return nil, fmt.Errorf("the MCP server %s did not answer within %s: the call of %s was given up", c.cfg.Name, timeout(c.cfg), tool)
	default:
		var rpc *jsonrpc.Error
		if errors.As(err, &rpc) {
			// The server answered, with an error: it is still there.
			return nil, fmt.Errorf("the MCP server %s refused the call of %s: %s", c.cfg.Name, tool, rpc.Message)
		}
		l.breaks()
		c.failed(fmt.Errorf("the server %s failed during a call of %s: %v", c.cfg.Name, tool, err))
		return nil, fmt.Errorf("the MCP server %s failed during the call of %s: %v", c.cfg.Name, tool, err)
	}
	return result(c.cfg.Name, tool, res)
}

// breaks marks l not to be used again.
func (l *link) breaks() {
	l.mu.Lock()
	l.broken = true
	l.mu.Unlock()
}

// running returns the call l runs, if any.
func (l *link) running() *running {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.current
}

// result is a tool's result as the model reads it: its structured content
// when it has some, else its text, one JSON string. A result the server
// marks as an error is the call's error, in its words.
func result(server, tool string, res *mcp.CallToolResult) (json.RawMessage, error) {
	var parts []string
	for _, c := range res.Content {
		switch c := c.(type) {
		case *mcp.TextContent:
			parts = append(parts, c.Text)
		case *mcp.ImageContent:
			parts = append(parts, fmt.Sprintf("[an image, %s]", c.MIMEType))
		case *mcp.AudioContent:
			parts = append(parts, fmt.Sprintf("[audio, %s]", c.MIMEType))
		case *mcp.ResourceLink:
			parts = append(parts, fmt.Sprintf("[a resource: %s]", c.URI))
		case *mcp.EmbeddedResource:
			if c.Resource != nil && c.Resource.Text != "" {
				parts = append(parts, c.Resource.Text)
			} else if c.Resource != nil {
				parts = append(parts, fmt.Sprintf("[a resource: %s]", c.Resource.URI))
			}
		}
	}
	text := strings.Join(parts, "\n")
	if res.IsError {
		if text == "" {
			text = "it gave no reason"
		}
		return nil, fmt.Errorf("the tool %s of the MCP server %s failed: %s", tool, server, text)
	}
	if res.StructuredContent != nil {
		if raw, err := json.Marshal(res.StructuredContent); err == nil {
			return raw, nil
		}
	}
	return json.Marshal(text)
}

// watchdog calls fire when it has not been fed for d, unless paused.
type watchdog struct {
	mu     sync.Mutex
	d      time.Duration
	t      *time.Timer
	paused int
}

func newWatchdog(d time.Duration, fire func()) *watchdog {
	return &watchdog{d: d, t: time.AfterFunc(d, fire)}
}

// feed starts the wait again: the server said something.
func (w *watchdog) feed() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.paused == 0 {
		w.t.Reset(w.d)
	}
}

// pause stops the wait while the user answers a question of the server's;
// resume starts it again when the answer is sent.
func (w *watchdog) pause() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.paused++
	w.t.Stop()
}

func (w *watchdog) resume() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.paused--; w.paused == 0 {
		w.t.Reset(w.d)
	}
}

func (w *watchdog) stop() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.paused++
	w.t.Stop()
}
