package mcp

import (
	"context"
	"crypto/subtle"
	"net/http"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
)

// Accounts finds the account a personal MCP token stands for (store.DB):
// a signed-in person makes one on /settings/tokens. ok is false for a
// token never made, revoked, or of a disabled account; it is read at every
// request, so a revocation is refused at once on every node.
type Accounts interface {
	MCPTokenAccount(ctx context.Context, token string) (account string, ok bool, err error)
}

// ownerKey marks the context of a request to /mcp with the owner of its
// calls' conversations.
type ownerKey struct{}

// owners decides who owns the calls of each request to /mcp: the
// program's own session (Config.Owner) for a request with the token the
// program was started with, or with none when it needs none; the account
// of a personal MCP token for a request with one. Anything else is
// answered 401 and reaches nothing. The owner goes on the request's
// context (ownerOf), and as the SDK's TokenInfo, which binds an MCP
// session to the owner that began it: a request of the session with
// another owner's token is refused (403), so one account never acts in
// another's session.
func (s *Server) owners(token string, accounts Accounts, next http.Handler) http.Handler {
	owned := func(w http.ResponseWriter, r *http.Request) {
		owner := auth.TokenInfoFromContext(r.Context()).UserID
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), ownerKey{}, owner)))
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got, hasBearer := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		if token == "" && !s.cfg.PersonalOnly && (!hasBearer || accounts == nil) {
			// Open (on loopback): the program's own session owns the calls.
			next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), ownerKey{}, s.cfg.Owner)))
			return
		}
		owner := ""
		switch {
		case !hasBearer:
		case token != "" && subtle.ConstantTimeCompare([]byte(got), []byte(token)) == 1:
			owner = s.cfg.Owner
		case accounts != nil:
			account, ok, err := accounts.MCPTokenAccount(r.Context(), got)
			if err != nil {
				s.cfg.Log.Error("mcp: a personal token not read", "err", err)
				http.Error(w, "The token could not be checked; try again.", http.StatusServiceUnavailable)
				return
			}
			if ok {
				owner = account
			}
		}
		if owner == "" {
			w.Header().Set("WWW-Authenticate", `Bearer realm="mcp"`)
			http.Error(w, needsToken(accounts), http.StatusUnauthorized)
			return
		}
		// Through the SDK's own middleware, the one way to give the SDK the
		// TokenInfo. A personal token lasts until revoked, which is checked
		// above at every request; the expiry the SDK asks for is nominal.
		info := &auth.TokenInfo{UserID: owner, Expiration: time.Now().Add(time.Hour)}
		verified := func(context.Context, string, *http.Request) (*auth.TokenInfo, error) { return info, nil }
		auth.RequireBearerToken(verified, nil)(http.HandlerFunc(owned)).ServeHTTP(w, r)
	})
}

// needsToken says what a request refused 401 lacked.
func needsToken(accounts Accounts) string {
	if accounts != nil {
		return "This MCP endpoint needs a bearer token: the one it was started with (--mcp-token), or a personal MCP token made on /settings/tokens and not revoked."
	}
	return "This MCP endpoint needs the bearer token it was started with (--mcp-token)."
}

// ownerOf is the owner of the calls of the request whose context is ctx
// (owners); the program's own session outside any request (stdio).
func (s *Server) ownerOf(ctx context.Context) string {
	if owner, ok := ctx.Value(ownerKey{}).(string); ok && owner != "" {
		return owner
	}
	return s.cfg.Owner
}
