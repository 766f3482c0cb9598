package transport

import (
	"context"
	"net/http"
	"slices"

	"github.com/labstack/echo/v4"

	"github.com/sweatpants-go/sweatpants/internal/apperr"
	"github.com/sweatpants-go/sweatpants/internal/operator"
	"github.com/sweatpants-go/sweatpants/internal/web/templates"
)

// The operator page: every account with its conversations, what waits for
// an answer, the newest feedback, and disabling an account. It is an
// operator's alone: anyone else, signed out included, is answered 404, as
// for a page there is not, so that nobody learns that it exists.

// OperatorDesk is what the operator page needs (operator.Desk). Disable
// and Enable return NotFound for an account there is not.
type OperatorDesk interface {
	Page(ctx context.Context) (operator.Page, error)
	Disable(ctx context.Context, id string) error
	Enable(ctx context.Context, id string) error
}

var _ OperatorDesk = (*operator.Desk)(nil)

// operatorOnly answers 404 to a request of anyone but an operator, before
// next sees it, and to everyone when the program has no operator page.
func (s *Server) operatorOnly(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		if a, ok := accountOf(c); !ok || !a.Operator || s.signin.Desk == nil {
			return echo.ErrNotFound
		}
		return next(c)
	}
}

// operatorRoute serves method on path with h, to operators alone. Every
// other method on path is answered 404 too, but for an operator (405):
// a 405 would tell anyone that the route is there.
func (s *Server) operatorRoute(method, path string, h echo.HandlerFunc, mw ...echo.MiddlewareFunc) {
	s.echo.Add(method, path, h, append(mw, s.operatorOnly)...)
	others := slices.DeleteFunc([]string{http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete, http.MethodOptions},
		func(m string) bool { return m == method })
	s.echo.Match(others, path, func(echo.Context) error { return echo.ErrMethodNotAllowed }, s.operatorOnly)
}

// operatorPage answers GET /operator: the page, for an operator.
func (s *Server) operatorPage(c echo.Context) error {
	return s.renderOperator(c, http.StatusOK, "")
}

// renderOperator renders the operator page with status and, when a change
// was refused, why, in place.
func (s *Server) renderOperator(c echo.Context, status int, problem string) error {
	p, err := s.signin.Desk.Page(c.Request().Context())
	if err != nil {
		return err
	}
	a, _ := accountOf(c)
	return render(c, status, templates.OperatorPage(templates.Operator{Page: p, Self: a.ID, Problem: problem}))
}

// disableAccount answers POST /operator/accounts/:account/disable, from the
// operator page's form: the account's sign-ins end (its open streams are
// cut at their next check of the sign-in), it cannot sign in again until
// enabled, and the page is shown again (303). An operator's own account
// is refused, with why, in place (400); an account there is not, 404.
func (s *Server) disableAccount(c echo.Context) error {
	if a, _ := accountOf(c); a.ID == c.Param("account") {
		return s.renderOperator(c, http.StatusBadRequest, "You cannot disable your own account: another operator can.")
	}
	return s.changeAccount(c, s.signin.Desk.Disable)
}

// enableAccount answers POST /operator/accounts/:account/enable: the disabled
// account may sign in again, and the page is shown again (303). 404 for
// an account there is not.
func (s *Server) enableAccount(c echo.Context) error {
	return s.changeAccount(c, s.signin.Desk.Enable)
}

// changeAccount applies change to the account of the request's :account.
func (s *Server) changeAccount(c echo.Context, change func(ctx context.Context, id string) error) error {
	err := change(c.Request().Context(), c.Param("account"))
	switch {
	case err == nil:
		return c.Redirect(http.StatusSeeOther, "/operator")
	case apperr.CodeOf(err) == apperr.NotFound:
		return s.renderOperator(c, http.StatusNotFound, "There is no such account.")
	}
	return err
}
