package transport

import (
	"errors"
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/sweatpants-go/sweatpants/backend/apperr"
)

// status maps an application error to its HTTP status. This is the one
// place the mapping lives.
func status(err error) int {
	switch apperr.CodeOf(err) {
	case apperr.Invalid:
		if e, ok := errors.AsType[*apperr.Error](err); ok && e.Fields != nil {
			return http.StatusUnprocessableEntity
		}
		return http.StatusBadRequest
	case apperr.NotFound:
		return http.StatusNotFound
	case apperr.Conflict:
		return http.StatusConflict
	case apperr.TooLarge:
		return http.StatusRequestEntityTooLarge
	case apperr.TooMany:
		return http.StatusTooManyRequests
	default:
		return http.StatusInternalServerError
	}
}

// handleError answers a failed request with its status and a plain-text
// message, logging internal failures with their detail.
func (s *Server) handleError(err error, c echo.Context) {
	if c.Response().Committed {
		return
	}
	code, msg := status(err), apperr.MessageOf(err)
	if he, ok := errors.AsType[*echo.HTTPError](err); ok {
		code, msg = he.Code, http.StatusText(he.Code)
		if m, ok := he.Message.(string); ok {
			msg = m
		}
	}
	if code >= 500 {
		s.log.Error("request failed", "method", c.Request().Method, "path", c.Request().URL.Path, "err", err)
	}
	c.String(code, msg)
}
