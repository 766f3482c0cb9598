package transport

import (
	"context"
	"net/http"
	"strings"
	"unicode/utf8"

	"github.com/labstack/echo/v4"

	"github.com/sweatpants-go/sweatpants/internal/store"
	"github.com/sweatpants-go/sweatpants/internal/web/templates"
)

// The settings page of personal MCP tokens: a signed-in person makes a
// token for an MCP client, and the client's calls to /mcp with it become
// conversations of the person's account (docs/mcp.md).

// MCPTokens keeps the personal MCP tokens (store.DB): made, listed and
// revoked by their account only. A token is kept hashed; MakeMCPToken
// returns it the one time it is known.
type MCPTokens interface {
	MakeMCPToken(ctx context.Context, account, label string) (store.MCPToken, string, error)
	MCPTokens(ctx context.Context, account string) ([]store.MCPToken, error)
	RevokeMCPToken(ctx context.Context, account, id string) (bool, error)
}

// maxTokenLabel is the longest label a token takes, in characters.
const maxTokenLabel = 100

// mcpTokensPage answers GET /settings/tokens: the signed-in person's
// tokens, each with when it was made and last used and a Revoke button,
// and a form to make one.
func (s *Server) mcpTokensPage(c echo.Context) error {
	a, ok := accountOf(c)
	if !ok {
		return signInFirst()
	}
	return s.renderMCPTokens(c, a, http.StatusOK, templates.MCPTokens{})
}

// makeMCPToken answers POST /settings/tokens, from the page's form: a
// token is made and shown on the page, this once (it is kept hashed).
func (s *Server) makeMCPToken(c echo.Context) error {
	a, ok := accountOf(c)
	if !ok {
		return signInFirst()
	}
	label := strings.TrimSpace(c.FormValue("label"))
	if utf8.RuneCountInString(label) > maxTokenLabel || strings.ContainsAny(label, "\r\n") {
		return s.renderMCPTokens(c, a, http.StatusBadRequest, templates.MCPTokens{Problem: "A token's label is one line of at most 100 characters."})
	}
	_, token, err := s.mcpTokens.MakeMCPToken(c.Request().Context(), a.ID, label)
	if err != nil {
		return err
	}
	// The token is on this page alone: no cache keeps it.
	c.Response().Header().Set("Cache-Control", "no-store")
	return s.renderMCPTokens(c, a, http.StatusOK, templates.MCPTokens{Made: token})
}

// revokeMCPToken answers POST /settings/tokens/:token/revoke: the token
// is refused from the next request on, on every node, and the page shown
// again (303). One that is not the person's (another's, or revoked
// already) gets the page again with why, 404.
func (s *Server) revokeMCPToken(c echo.Context) error {
	a, ok := accountOf(c)
	if !ok {
		return signInFirst()
	}
	revoked, err := s.mcpTokens.RevokeMCPToken(c.Request().Context(), a.ID, c.Param("token"))
	if err != nil {
		return err
	}
	if !revoked {
		return s.renderMCPTokens(c, a, http.StatusNotFound, templates.MCPTokens{Problem: "That token is not there: it was revoked already, perhaps in another tab."})
	}
	return c.Redirect(http.StatusSeeOther, "/settings/tokens")
}

// renderMCPTokens renders the page of a's tokens with status, v saying
// what else it shows.
func (s *Server) renderMCPTokens(c echo.Context, a Account, status int, v templates.MCPTokens) error {
	tokens, err := s.mcpTokens.MCPTokens(c.Request().Context(), a.ID)
	if err != nil {
		return err
	}
	for _, t := range tokens {
		v.Tokens = append(v.Tokens, templates.MCPToken{ID: t.ID, Label: t.Label, Created: t.Created, LastUsed: t.LastUsed})
	}
	return render(c, status, templates.MCPTokensPage(v))
}
