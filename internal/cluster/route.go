package cluster

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"time"
)

// ForwardedHeader marks a request one node forwarded to another; its value
// is the forwarding node's id. A request carrying it is never forwarded
// again, so two nodes that disagree about an owner cannot bounce a request
// between them. A browser that sets it only denies itself the forwarding.
const ForwardedHeader = "Sweatpants-Forwarded-By"

// ErrLost is the cause of a request context Serve cancels because the
// conversation's lease was lost.
var ErrLost = errors.New("cluster: the conversation's lease was lost")

// Route is middleware that serves each request for a conversation on the
// node that holds it; conversation names the request's conversation, ""
// for requests that belong to none (served here). See Serve.
func (n *Node) Route(conversation func(*http.Request) string) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			c := conversation(r)
			if c == "" {
				next.ServeHTTP(w, r)
				return
			}
			n.Serve(w, r, c, next)
		})
	}
}

// Serve answers r, a request for conversation, where the conversation is
// live. If this node holds it or can take it, next serves r here, holding
// the lease until next returns; r's context is cancelled (cause ErrLost)
// if the lease is lost meanwhile, so a stream ends and its browser
// reconnects to the new owner. If another live node holds it, r is
// forwarded there as it came (its Host, its cookie), streaming, and
// forwarded again, or served here, if that node fails it (see forward). A
// request that was forwarded already is not forwarded again: it gets 503
// with Retry-After.
func (n *Node) Serve(w http.ResponseWriter, r *http.Request, conversation string, next http.Handler) {
	elsewhere := func(away *Elsewhere) {
		n.owners.put(away, time.Now())
		n.forward(w, r, away, next)
	}
	if r.Header.Get(ForwardedHeader) != "" {
		elsewhere = func(away *Elsewhere) {
			unavailable(w, fmt.Sprintf("This conversation is live on node %s, and this request was already forwarded once; try again in a moment.", away.Node))
		}
	} else if away := n.owners.get(conversation, time.Now()); away != nil {
		n.forward(w, r, away, next) // where it was a moment ago (owners.go)
		return
	}
	lease, err := n.Hold(r.Context(), conversation)
	n.answer(w, r, conversation, next, lease, err, elsewhere)
}

// answer serves r with next if Hold gave a lease, hands it to elsewhere if
// another node holds the conversation, and refuses it otherwise.
func (n *Node) answer(w http.ResponseWriter, r *http.Request, c string, next http.Handler, lease *Lease, err error, elsewhere func(*Elsewhere)) {
	var away *Elsewhere
	switch {
	case err == nil:
		defer lease.Release()
		ctx, cancel := context.WithCancelCause(r.Context())
		defer cancel(nil)
		go func() {
			select {
			case <-lease.Lost():
				cancel(ErrLost)
			case <-ctx.Done():
			}
		}()
		next.ServeHTTP(w, r.WithContext(ctx))
	case errors.As(err, &away):
		elsewhere(away)
	case errors.Is(err, ErrDraining), errors.Is(err, ErrClosed):
		unavailable(w, "This server is shutting down; try again in a moment.")
	default:
		n.log.Warn("cluster: serve a request", "conversation", c, "err", err)
		unavailable(w, "This conversation cannot be reached right now; try again in a moment.")
	}
}

// takeOver holds c after its owner, node dead, refused a connection. A
// killed node's lock goes when the server sees its connection end, a
// moment after the process is gone, so an owner that still looks live is
// asked after again for about a second before the request is refused. A
// node that took the conversation over meanwhile is named at once.
func (n *Node) takeOver(ctx context.Context, c, dead string) (*Lease, error) {
	delay, until := 10*time.Millisecond, time.Now().Add(time.Second)
	for {
		lease, err := n.Hold(ctx, c)
		var away *Elsewhere
		if !errors.As(err, &away) || away.Node != dead || time.Now().After(until) {
			return lease, err
		}
		t := time.NewTimer(delay)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, ctx.Err()
		case <-t.C:
		}
		delay *= 2
	}
}

// unavailable answers 503 with a Retry-After and a message for a person.
func unavailable(w http.ResponseWriter, msg string) {
	w.Header().Set("Retry-After", strconv.Itoa(1))
	http.Error(w, msg, http.StatusServiceUnavailable)
}
