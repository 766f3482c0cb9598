package mcp

import (
	"context"
	"io"
	"net/http"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Handler serves s over Streamable HTTP, for transport.Mount at /mcp. With
// a token, a request must carry it as "Authorization: Bearer TOKEN" or is
// answered 401; without one the handler is open, which the program allows
// only when it listens on loopback. With accounts (sign-in configured), a
// request may carry instead a personal MCP token of an account, and its
// calls are then that account's conversations (see owners). Cross-origin
// requests a browser makes are refused here too, beside the pages' own
// protection that a mount gets. With Config.Events, the streams' events
// are kept there (EventStore), so a client resumes a broken stream with
// Last-Event-ID.
func Handler(s *Server, token string, accounts Accounts) http.Handler {
	next := http.NewCrossOriginProtection().Handler(bounded(s.cfg.MaxBody, revisions(s)))
	return s.owners(token, accounts, next)
}

// bounded reads at most max bytes of a request's body: what reads past it
// fails with an *http.MaxBytesError, which the SDK answers 413.
func bounded(max int64, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Body != nil {
			r.Body = http.MaxBytesReader(w, r.Body, max)
		}
		next.ServeHTTP(w, r)
	})
}

// revisions serves both kinds of revision from one endpoint: a request of
// 2026-07-28 or later, which says so in its Mcp-Protocol-Version header,
// is served statelessly (the revision has no sessions; a question inside a
// call is an input_required result), any other by sessions (initialize,
// Mcp-Session-Id, a question sent as elicitation/create while the call
// runs). The SDK offers each as a handler of its own, not both in one.
func revisions(s *Server) http.Handler {
	get := func(*http.Request) *sdk.Server { return s.sdk }
	opts := &sdk.StreamableHTTPOptions{Logger: s.cfg.Log, MaxRequestBodyBytes: s.cfg.MaxBody, SessionTimeout: s.cfg.SessionIdle}
	if s.events != nil {
		opts.EventStore = s.events
	}
	var sessions http.Handler = sdk.NewStreamableHTTPHandler(get, opts)
	if s.revive != nil {
		sessions = s.revive.handler(sessions)
	}
	sessionless := sdk.NewStreamableHTTPHandler(get, &sdk.StreamableHTTPOptions{Logger: s.cfg.Log, Stateless: true, MaxRequestBodyBytes: s.cfg.MaxBody,
		// A call the client gives up on is stopped, as one of a session is.
		PropagateRequestCancellation: true})
	tasks := s.tasks(sessionless) // the tasks extension, beside the SDK (see tasks)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Mcp-Protocol-Version") >= stateless {
			tasks.ServeHTTP(w, r)
			return
		}
		sessions.ServeHTTP(w, r)
	})
}

// Serve serves s over stdio-like streams until the client goes away or ctx
// ends.
func Serve(ctx context.Context, s *Server, in io.ReadCloser, out io.WriteCloser) error {
	return s.sdk.Run(ctx, &sdk.IOTransport{Reader: in, Writer: out})
}
