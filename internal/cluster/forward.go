package cluster

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net"
	"net/http"
	"net/http/httptrace"
	"net/http/httputil"
	"net/url"
	"sync"
	"sync/atomic"
	"time"
)

// Why a forward to an owner ended without the owner's whole response.
var (
	// errRefused: the owner refused the connection; it has most likely
	// just died.
	errRefused = errors.New("cluster: the owner refused the connection")
	// errMoved: the conversation's lease left the owner while it served.
	errMoved = errors.New("cluster: the conversation moved while its owner served the request")
	// errNoAnswer: the owner did not begin its response within the
	// forwarding deadline.
	errNoAnswer = errors.New("cluster: the owner did not answer in time")
)

// replayBytes is the most of a request's body read ahead, so that the
// request can be forwarded again, or served here, when its owner fails it.
const replayBytes = 1 << 20

// fruitless is how many forwards in a row may end without passing anything
// on before the request is given up.
const fruitless = 4

// forward serves r on the node named by to, and on whichever node the
// conversation is live on next if that node fails it: one that refuses
// the connection (most likely just killed), one that does not begin its
// response within the forwarding deadline, one whose lease expires or is
// taken over before it answers (frozen, or cut off from the database).
// The request is then forwarded to the new owner, or served here when
// this node can take the conversation. Once an owner's response has
// begun, the owner has done what was asked, and only a stream of
// server-sent events goes on elsewhere: the new owner's stream follows it
// from the last event passed on. Any other response an owner breaks off
// is cut short, so its browser does not take it for whole.
func (n *Node) forward(w http.ResponseWriter, r *http.Request, to *Elsewhere, next http.Handler) {
	c := to.Conversation
	body, err := readAhead(r)
	if err != nil {
		http.Error(w, "The request's body could not be read.", http.StatusBadRequest)
		return
	}
	out := &relay{w: w}
	for failed := 0; ; {
		why := n.forwardTo(out, r, to, body)
		if r.Context().Err() != nil {
			out.finish()
			return // the browser left
		}
		if why == nil && out.resumable() && n.left(r.Context(), c, to.Node) {
			// The owner ended the stream because it let the conversation go.
			why = errMoved
		}
		if why == nil {
			out.finish()
			return
		}
		if out.started && !out.resumable() {
			n.log.Warn("cluster: a forwarded response was cut short", "node", to.Node, "conversation", c, "err", why)
			panic(http.ErrAbortHandler) // the browser must not take it for whole
		}
		if out.passed > 0 {
			failed = 0
		}
		if failed++; failed > fruitless {
			n.giveUp(out, "This conversation's server did not answer; try again in a moment.")
			return
		}
		n.owners.forget(c)
		var lease *Lease
		if errors.Is(why, errRefused) {
			n.log.Info("cluster: the owner does not answer; taking over if it is dead", "node", to.Node)
			lease, err = n.takeOver(r.Context(), c, to.Node)
		} else {
			n.log.Info("cluster: a forward is done again where the conversation is live now", "node", to.Node, "conversation", c, "why", why)
			lease, err = n.Hold(r.Context(), c)
		}
		var away *Elsewhere
		switch {
		case errors.As(err, &away) && away.Node == to.Node && !errors.Is(why, errMoved):
			// The owner that failed the request still holds the
			// conversation: what it did of the request is unknown, and
			// the browser is told to try again rather than it being sent
			// twice.
			switch {
			case errors.Is(why, errRefused):
				n.giveUp(out, fmt.Sprintf("This conversation is live on node %s, which does not answer; try again in a moment.", away.Node))
			case errors.Is(why, errNoAnswer):
				n.giveUp(out, "This conversation's server did not answer in time; try again in a moment.")
			default:
				n.giveUp(out, "This conversation's server did not answer; try again in a moment.")
			}
			return
		case errors.As(err, &away):
			n.owners.put(away, time.Now())
			to = away
			continue
		case err != nil && out.started:
			n.log.Warn("cluster: serve a request", "conversation", c, "err", err)
			return // the stream ends; its browser reconnects
		}
		again, ok := out.again(r, body)
		if !ok {
			if lease != nil {
				lease.Release()
			}
			n.giveUp(out, "This conversation's server did not answer; try again in a moment.")
			return
		}
		n.answer(out, again, c, next, lease, err, nil)
		return
	}
}

// giveUp ends a forward that cannot go on: 503 with msg, or the end of a
// stream under way, which its browser reconnects.
func (n *Node) giveUp(out *relay, msg string) {
	if !out.started {
		unavailable(out, msg)
	}
}

// left reports whether the node no longer holds c: the lease moved, or its
// node is draining. An error counts as not: the response stays ended.
func (n *Node) left(ctx context.Context, c, node string) bool {
	o, err := n.Owner(ctx, c)
	return err == nil && o.Node != node
}

// forwardTo forwards r once, to the node named by to, writing what it
// answers to out. It returns nil when the owner's response was passed on
// whole (or the browser left); errRefused, errMoved or errNoAnswer when
// the forward failed for that reason, and another error when the owner
// failed some other way.
func (n *Node) forwardTo(out *relay, r *http.Request, to *Elsewhere, body *replay) error {
	target, err := url.Parse(to.URL)
	if err != nil || target.Host == "" {
		return fmt.Errorf("cluster: node %s's URL %q: %v", to.Node, to.URL, err)
	}
	req, ok := out.again(r, body)
	if !ok {
		return errors.New("cluster: the request's body was sent already")
	}
	ctx, cancel := context.WithCancelCause(req.Context())
	defer cancel(nil)
	w := n.watching.add(to.Conversation, to.Node)
	defer n.watching.remove(w)
	// answered is set when the owner's response begins, settled when it
	// is not an event stream as well: the owner has done what was asked
	// then, and doing it again elsewhere could do it twice.
	var answered, settled atomic.Bool
	// The deadline runs from when the request was sent whole: a large body
	// from a slow browser takes what it takes.
	wrote := make(chan struct{})
	var once sync.Once
	ctx = httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{
		WroteRequest: func(httptrace.WroteRequestInfo) { once.Do(func() { close(wrote) }) },
	})
	go func() {
		select {
		case <-wrote:
		case <-ctx.Done():
			return
		}
		t := time.NewTimer(n.forwardTimeout)
		defer t.Stop()
		select {
		case <-t.C:
			if !answered.Load() {
				cancel(errNoAnswer)
			}
		case <-ctx.Done():
		}
	}()
	go func() {
		select {
		case <-w.moved:
			if !settled.Load() {
				cancel(errMoved)
			}
		case <-ctx.Done():
		}
	}()
	var failed, broken error
	proxy := &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.SetURL(target)
			pr.Out.Host = pr.In.Host // the owner sees the request as the browser sent it
			// The browser is named after the hops before this node (a load
			// balancer's), which SetXForwarded appends this node's peer to;
			// what a load balancer said of the browser's connection stands:
			// this node's own hop is plain HTTP.
			pr.Out.Header["X-Forwarded-For"] = pr.In.Header["X-Forwarded-For"]
			pr.SetXForwarded()
			for _, h := range []string{"X-Forwarded-Proto", "X-Forwarded-Host"} {
				if v := pr.In.Header.Get(h); v != "" {
					pr.Out.Header.Set(h, v)
				}
			}
			pr.Out.Header.Set(ForwardedHeader, n.id)
		},
		Transport: n.transport,
		// Each write is flushed at once, so a server-sent event, or any
		// response written bit by bit, reaches the browser as the owner
		// sends it.
		FlushInterval: -1,
		ErrorLog:      slog.NewLogLogger(n.log.Handler(), slog.LevelWarn),
		ModifyResponse: func(res *http.Response) error {
			mt, _, _ := mime.ParseMediaType(res.Header.Get("Content-Type"))
			settled.Store(mt != "text/event-stream")
			answered.Store(true)
			// A body cut off (the owner died, or this node cut it) ends as
			// if whole for the proxy, which would otherwise abort the
			// browser's connection: whether it goes on is decided here.
			res.Body = &cutBody{ReadCloser: res.Body, err: &broken}
			return nil
		},
		ErrorHandler: func(_ http.ResponseWriter, _ *http.Request, err error) { failed = err },
	}
	out.next()
	proxy.ServeHTTP(out, req.WithContext(ctx))
	if failed == nil && broken == nil {
		return nil
	}
	if why := context.Cause(ctx); errors.Is(why, errMoved) || errors.Is(why, errNoAnswer) {
		return why
	}
	var op *net.OpError
	if errors.As(failed, &op) && op.Op == "dial" {
		return fmt.Errorf("%w: %v", errRefused, failed)
	}
	if failed != nil {
		n.log.Warn("cluster: forward a request", "node", to.Node, "err", failed)
		return fmt.Errorf("cluster: forward to node %s: %w", to.Node, failed)
	}
	return fmt.Errorf("cluster: node %s's response broke off: %w", to.Node, broken)
}

// cutBody is an owner's response body whose failure reads as its end,
// noted in err.
type cutBody struct {
	io.ReadCloser
	err *error
}

func (b *cutBody) Read(p []byte) (int, error) {
	k, err := b.ReadCloser.Read(p)
	if err != nil && err != io.EOF {
		*b.err = err
		return k, io.EOF
	}
	return k, err
}

// replay is a request's body, read ahead so that it can be sent again.
type replay struct {
	ahead []byte    // the body's beginning, or all of it
	rest  io.Reader // what follows ahead; nil when ahead is all of it
	used  bool      // rest was read from: the body cannot be sent again
}

// readAhead reads up to replayBytes of r's body.
func readAhead(r *http.Request) (*replay, error) {
	if r.Body == nil || r.Body == http.NoBody {
		return &replay{}, nil
	}
	ahead, err := io.ReadAll(io.LimitReader(r.Body, replayBytes+1))
	if err != nil {
		return nil, fmt.Errorf("read the request's body: %w", err)
	}
	if len(ahead) <= replayBytes {
		return &replay{ahead: ahead}, nil
	}
	return &replay{ahead: ahead, rest: r.Body}, nil
}

// open returns the body to send, or false when it was sent already and
// cannot be again.
func (b *replay) open() (io.ReadCloser, bool) {
	if b.rest == nil {
		return io.NopCloser(bytes.NewReader(b.ahead)), true
	}
	if b.used {
		return nil, false
	}
	return io.NopCloser(io.MultiReader(bytes.NewReader(b.ahead), &marking{b})), true
}

// marking reads the rest of a replay's body, marking it used.
type marking struct{ b *replay }

func (m *marking) Read(p []byte) (int, error) {
	m.b.used = true
	return m.b.rest.Read(p)
}

// again is r to send to the next owner, or to serve here: its body anew,
// and, for an event stream under way, the id of the last event passed on
// as Last-Event-ID, so the stream goes on from there.
func (rl *relay) again(r *http.Request, body *replay) (*http.Request, bool) {
	b, ok := body.open()
	if !ok {
		return nil, false
	}
	req := r.Clone(r.Context())
	req.Body = b
	if rl.resumable() && rl.lastID != "" {
		req.Header.Set("Last-Event-ID", rl.lastID)
	}
	return req, true
}
