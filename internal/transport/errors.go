package transport

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strings"
	"syscall"

	"github.com/labstack/echo/v4"

	"github.com/sweatpants-go/sweatpants/internal/apperr"
	"github.com/sweatpants-go/sweatpants/internal/web/templates"
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
	case apperr.Unsupported:
		return http.StatusUnsupportedMediaType
	case apperr.TooMany:
		return http.StatusTooManyRequests
	case apperr.Unavailable:
		return http.StatusServiceUnavailable
	case apperr.NoRoom:
		return http.StatusInsufficientStorage
	default:
		if exhausted(err) {
			return http.StatusServiceUnavailable
		}
		return http.StatusInternalServerError
	}
}

// retryAfter is the seconds a client refused for a limit is asked to wait.
const retryAfter = "10"

// exhausted reports whether err is the process running out of descriptors:
// a passing overload, answered 503 like a limit, not 500 like a fault.
func exhausted(err error) bool {
	return errors.Is(err, syscall.EMFILE) || errors.Is(err, syscall.ENFILE)
}

// wantsPage reports whether r is a browser navigating: a GET that accepts
// HTML, not one of the page's own (Datastar) requests.
func wantsPage(r *http.Request) bool {
	return r.Method == http.MethodGet && !fromDatastar(r) && strings.Contains(r.Header.Get("Accept"), "text/html")
}

// fromDatastar reports whether r is one of a page's own requests, which the
// Datastar client marks with a header, rather than a script's.
func fromDatastar(r *http.Request) bool { return r.Header.Get("Datastar-Request") != "" }

// cutMessage is what a request cut short on the server is answered with.
const cutMessage = "This request was cut short on the server (the conversation moved to another server, or the server is restarting); please try again."

// cut reports whether err is r's own context ending while r was served:
// the server cut it (a conversation's lease lost as it moved to another
// node, a shutdown) or the client left. Neither is a fault: the first is
// answered 503 with Retry-After, and the second hears no answer at all.
func cut(err error, r *http.Request) bool {
	return r.Context().Err() != nil && (errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded))
}

// answer is the status and the message a failed request r is answered
// with: its error's (status), or 503 and cutMessage for a request the
// server cut short.
func answer(err error, r *http.Request) (code int, msg string, wasCut bool) {
	if apperr.CodeOf(err) == apperr.Internal && cut(err, r) {
		return http.StatusServiceUnavailable, cutMessage, true
	}
	return status(err), apperr.MessageOf(err), false
}

// handleError answers a failed request with its status and a plain-text
// message, logging internal failures with their detail.
func (s *Server) handleError(err error, c echo.Context) {
	if c.Response().Committed {
		return
	}
	code, msg, wasCut := answer(err, c.Request())
	if he, ok := errors.AsType[*echo.HTTPError](err); ok {
		code, msg = he.Code, http.StatusText(he.Code)
		if m, ok := he.Message.(string); ok {
			msg = m
		}
	}
	if code == http.StatusTooManyRequests || code == http.StatusServiceUnavailable {
		// A limit, not a fault: say when trying again may work.
		c.Response().Header().Set("Retry-After", retryAfter)
		if code == http.StatusServiceUnavailable && apperr.CodeOf(err) == apperr.Internal && exhausted(err) {
			msg = "The server is out of room for a moment; please try again shortly."
		}
	}
	if code >= 500 && !slices.Contains([]apperr.Code{apperr.Unavailable, apperr.NoRoom}, apperr.CodeOf(err)) && !wasCut { // a limit reached, or a cut, is in the access log
		path := c.Request().URL.Path
		if c.Path() == "/s/:token" {
			path = c.Path() // a shared link's token is never logged
		}
		s.log.Error("request failed", "method", c.Request().Method, "path", path, "err", err)
	}
	if code == http.StatusNotFound && wantsPage(c.Request()) {
		// A person who followed a link or typed an address gets a page
		// that says so, with a way back; scripts and the page's own
		// requests get the plain message.
		if render(c, code, templates.NotFoundPage(msg)) == nil {
			return
		}
	}
	c.String(code, msg)
}
