package transport

import (
	"context"
	"net/http"
	"strconv"

	"github.com/labstack/echo/v4"

	"github.com/sweatpants-go/sweatpants/internal/always"
	"github.com/sweatpants-go/sweatpants/internal/apperr"
	"github.com/sweatpants-go/sweatpants/internal/chat"
	"github.com/sweatpants-go/sweatpants/internal/web/templates"
)

// The settings page of permissions: the tools the user always allows, each
// to revoke, and the program's own rules, to read.

// Permissions is what the settings page needs of the chat service: the
// session's "Always allow" rules, and revoking one. Errors: RevokeAlways
// returns an apperr NotFound for a rule the session does not have (another
// session's, or one revoked already).
type Permissions interface {
	AlwaysAllowed(ctx context.Context, session string) ([]AlwaysRule, error)
	RevokeAlways(ctx context.Context, session string, id int64) error
}

// AlwaysRule is a tool a session's user always allows: the answer "Always
// allow" to an approval, kept for the session until revoked.
type AlwaysRule = always.Rule

// The chat service is what the settings page runs on; this fails to
// compile when the two drift apart.
var _ Permissions = (*chat.Service)(nil)

// permissionsPage answers GET /settings/permissions: the session's always
// rules, each with a Revoke button, and the program's rules as written.
func (s *Server) permissionsPage(c echo.Context) error {
	return s.renderPermissions(c, http.StatusOK, "")
}

// renderPermissions renders the settings page of permissions with status,
// and problem, when a revoke was refused, in place.
func (s *Server) renderPermissions(c echo.Context, status int, problem string) error {
	v := templates.Permissions{Program: s.programRules, Problem: problem, Keeps: s.permissions != nil}
	if s.permissions != nil {
		rules, err := s.permissions.AlwaysAllowed(c.Request().Context(), sessionOf(c))
		if err != nil {
			return err
		}
		for _, r := range rules {
			v.Always = append(v.Always, templates.AlwaysRule{ID: r.ID, Agent: r.Agent, Tool: r.Tool, Created: r.Created})
		}
	}
	return render(c, status, templates.PermissionsPage(v))
}

// revokeAlways answers POST /settings/permissions/:id/revoke, from the
// settings page's form: the session's always rule id is revoked, and the
// page shown again (303). A rule the session does not have (revoked
// already, from another tab) gets the page again with why, 404.
func (s *Server) revokeAlways(c echo.Context) error {
	id, err := strconv.ParseInt(c.Param("id"), 10, 64)
	if err != nil || id <= 0 {
		return s.renderPermissions(c, http.StatusNotFound, "There is no such rule to revoke.")
	}
	if s.permissions == nil {
		return s.renderPermissions(c, http.StatusNotFound, "This program keeps no always-allow choices.")
	}
	err = s.permissions.RevokeAlways(c.Request().Context(), sessionOf(c), id)
	switch {
	case err == nil:
		return c.Redirect(http.StatusSeeOther, "/settings/permissions")
	case apperr.CodeOf(err) == apperr.NotFound:
		return s.renderPermissions(c, http.StatusNotFound, "That rule is no longer there: it was revoked already, perhaps in another tab.")
	}
	return err
}
