package transport

import (
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/sweatpants-go/sweatpants/internal/apperr"
	"github.com/sweatpants-go/sweatpants/internal/share"
	"github.com/sweatpants-go/sweatpants/internal/tree"
	"github.com/sweatpants-go/sweatpants/internal/web/templates"
)

// Shared links: a read-only link to a conversation's branch as it stood
// at a node (package share), made, listed and revoked by the
// conversation's owner; the shared page, which needs no session and gives
// none; and the branch as JSON. A link's token is in its path only: the
// access log writes the route's pattern, never the path.

// Shares is what the shared links need (share.Service). Errors: NotFound
// for a conversation the session does not own, a link not the
// conversation's, and a token no live link has; Invalid for a node the
// conversation does not have, or an expiry out of bounds.
type Shares interface {
	Create(ctx context.Context, session, conversation string, node int64, ttl time.Duration) (share.Link, string, error)
	List(ctx context.Context, session, conversation string) (tree.Conversation, []share.Link, error)
	Revoke(ctx context.Context, session, conversation string, id int64) error
	Open(ctx context.Context, token string) (share.Branch, error)
	Export(ctx context.Context, session, conversation string, node int64) (share.Branch, error)
}

var _ Shares = (*share.Service)(nil)

// sharesPage answers GET /c/:id/shares: the conversation's live links,
// each to revoke, and the form that makes one. 404 for a conversation the
// session does not own.
func (s *Server) sharesPage(c echo.Context) error {
	return s.renderShares(c, http.StatusOK, "", "")
}

// renderShares renders the page of links with status, the URL of a link
// just made, and why a request was refused, if it was.
func (s *Server) renderShares(c echo.Context, status int, made, problem string) error {
	conv, links, err := s.shares.List(c.Request().Context(), sessionOf(c), c.Param("id"))
	if err != nil {
		return err
	}
	v := templates.Shares{Conversation: conv.ID, Title: conv.Title, Made: made, Problem: problem}
	for _, l := range links {
		v.Links = append(v.Links, templates.ShareLink{ID: l.ID, Node: l.Node, Created: l.Created, Expires: l.Expires})
	}
	return render(c, status, templates.SharesPage(v))
}

// shareMade is the answer to a script that makes a link.
type shareMade struct {
	ID      int64  `json:"id"`
	URL     string `json:"url"`
	Node    int64  `json:"node"`
	Expires string `json:"expires"`
}

// createShare answers POST /c/:id/shares (form: node, empty for HEAD;
// expiry, "1h" to "30d", empty for 7 days): a link to the branch as it
// stands now at node, 201 with the page showing it once (JSON with its
// URL when the request accepts application/json). 400 for a node the
// conversation does not have or an expiry out of bounds, 404 for a
// conversation the session does not own; neither records anything.
func (s *Server) createShare(c echo.Context) error {
	node, err := share.ParseNode(strings.TrimSpace(c.FormValue("node")))
	var ttl time.Duration
	if err == nil {
		ttl, err = share.ParseExpiry(c.FormValue("expiry"))
	}
	var l share.Link
	var token string
	if err == nil {
		l, token, err = s.shares.Create(c.Request().Context(), sessionOf(c), c.Param("id"), node, ttl)
	}
	if err != nil {
		if apperr.CodeOf(err) == apperr.Invalid && !wantsJSON(c) {
			return s.renderShares(c, http.StatusBadRequest, "", apperr.MessageOf(err))
		}
		return err
	}
	url := "/s/" + token
	c.Response().Header().Set("Cache-Control", "no-store") // the answer holds the token
	if wantsJSON(c) {
		return c.JSON(http.StatusCreated, shareMade{ID: l.ID, URL: url, Node: l.Node, Expires: l.Expires.UTC().Format(time.RFC3339)})
	}
	return s.renderShares(c, http.StatusCreated, url, "")
}

func wantsJSON(c echo.Context) bool {
	return strings.Contains(c.Request().Header.Get("Accept"), "application/json")
}

// revokeShare answers POST /c/:id/shares/:share/revoke: the link is gone,
// and the page of links shown again (303). A link that is not the
// conversation's (revoked already) gets the page again with why, 404; a
// conversation the session does not own is 404.
func (s *Server) revokeShare(c echo.Context) error {
	id, err := strconv.ParseInt(c.Param("share"), 10, 64)
	if err == nil && id > 0 {
		err = s.shares.Revoke(c.Request().Context(), sessionOf(c), c.Param("id"), id)
	} else {
		err = apperr.Errorf(apperr.NotFound, "There is no such link.")
	}
	switch {
	case err == nil:
		return c.Redirect(http.StatusSeeOther, "/c/"+c.Param("id")+"/shares")
	case apperr.CodeOf(err) == apperr.NotFound && s.owns(c):
		return s.renderShares(c, http.StatusNotFound, "", "That link is no longer there: it was revoked already, or has expired.")
	}
	return err
}

// owns reports whether the session owns the conversation of c's :id.
func (s *Server) owns(c echo.Context) bool {
	_, _, err := s.shares.List(c.Request().Context(), sessionOf(c), c.Param("id"))
	return err == nil
}

// sharedPage answers GET /s/:token, and GET /s/:token.json: the branch a
// link shares, as a page to read or as JSON, to anyone with the link, no
// session read or made. 404, with a page that says so, alike for a token
// that never was, a revoked link and an expired one. The page goes
// unindexed and sends no referrer, so the link does not leak through the
// links in it.
func (s *Server) sharedPage(c echo.Context) error {
	h := c.Response().Header()
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("X-Robots-Tag", "noindex, nofollow")
	h.Set("Cache-Control", "no-store")
	token, asJSON := strings.CutSuffix(c.Param("token"), ".json")
	b, err := s.shares.Open(c.Request().Context(), token)
	if err != nil {
		return err
	}
	if asJSON {
		return c.JSON(http.StatusOK, b)
	}
	return render(c, http.StatusOK, templates.SharedPage(sharedView(b)))
}

// exportBranch answers GET /c/:id/export.json?node=N: the session's
// conversation's branch up to node N (HEAD without it), as a link to it
// would show it, as a JSON file. 400 for a node it does not have, 404 for
// a conversation the session does not own.
func (s *Server) exportBranch(c echo.Context) error {
	node, err := share.ParseNode(c.QueryParam("node"))
	if err != nil {
		return err
	}
	b, err := s.shares.Export(c.Request().Context(), sessionOf(c), c.Param("id"), node)
	if err != nil {
		return err
	}
	c.Response().Header().Set(echo.HeaderContentDisposition, `attachment; filename="conversation.json"`)
	return c.JSON(http.StatusOK, b)
}

// sharedView is a branch as the shared page shows it.
func sharedView(b share.Branch) templates.SharedBranch {
	v := templates.SharedBranch{Title: b.Title, At: b.At}
	for _, it := range b.Items {
		item := templates.SharedItem{ID: it.ID, Kind: it.Kind, Agent: it.Agent, Text: it.Text}
		if t := it.Tool; t != nil {
			item.Tool = &templates.SharedTool{Name: t.Name, Args: indent(t.Args), Digest: t.Digest, Decision: t.Decision,
				Outcome: t.Outcome, Output: indent(t.Output), Error: t.Error}
		}
		v.Items = append(v.Items, item)
	}
	return v
}

// indent is JSON indented to read, or as it is if it is not JSON.
func indent(raw json.RawMessage) string {
	if len(raw) == 0 {
		return ""
	}
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return string(raw)
	}
	if s, ok := v.(string); ok {
		return s
	}
	out, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return string(raw)
	}
	return string(out)
}
