package mcp

import (
	"context"
	"crypto/subtle"
	"io"
	"net/http"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Handler serves s over Streamable HTTP, for transport.Mount at /mcp. With
// a token, a request must carry it as "Authorization: Bearer TOKEN" or is
// answered 401; without one the handler is open, which the program allows
// only when it listens on loopback. Cross-origin requests a browser makes
// are refused here too, beside the pages' own protection that a mount gets.
// With Config.Events, the streams' events are kept there (EventStore), so
// a client resumes a broken stream with Last-Event-ID.
func Handler(s *Server, token string) http.Handler {
	opts := &sdk.StreamableHTTPOptions{Logger: s.cfg.Log}
	if s.cfg.Events != nil {
		opts.EventStore = NewEventStore(s.cfg.Events, EventOptions{})
	}
	h := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s.sdk }, opts)
	var next http.Handler = http.NewCrossOriginProtection().Handler(h)
	if token == "" {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		if !ok || subtle.ConstantTimeCompare([]byte(got), []byte(token)) != 1 {
			w.Header().Set("WWW-Authenticate", `Bearer realm="mcp"`)
			http.Error(w, "This MCP endpoint needs the bearer token it was started with (--mcp-token).", http.StatusUnauthorized)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// Serve serves s over stdio-like streams until the client goes away or ctx
// ends.
func Serve(ctx context.Context, s *Server, in io.ReadCloser, out io.WriteCloser) error {
	return s.sdk.Run(ctx, &sdk.IOTransport{Reader: in, Writer: out})
}
