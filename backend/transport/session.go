package transport

import (
	"net/http"
	"regexp"

	"github.com/labstack/echo/v4"
)

const sessionCookie = "sp_session"

var validSession = regexp.MustCompile(`^[0-9a-f]{32}$`)

// session reads the browser's session from its HttpOnly cookie; a request
// with no well-formed cookie has no session and owns nothing. Nothing here
// writes: a session is issued only when a conversation starts (startSession),
// so a visit that starts nothing (any cross-site <img>) costs no row and no
// cookie.
func (s *Server) session(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		if ck, err := c.Cookie(sessionCookie); err == nil && validSession.MatchString(ck.Value) {
			c.Set(sessionCookie, ck.Value)
		}
		return next(c)
	}
}

func sessionOf(c echo.Context) string {
	id, _ := c.Get(sessionCookie).(string)
	return id
}

// startSession gives the browser a new session id, issued and recorded by
// the service, that takes over the conversations of its current one (if the
// server issued that one). Rotating on every new conversation means an id
// planted in the browser by someone else never owns what its user starts.
func (s *Server) startSession(c echo.Context) (string, error) {
	id, err := s.chat.RotateSession(c.Request().Context(), sessionOf(c))
	if err != nil {
		return "", err
	}
	c.SetCookie(&http.Cookie{
		Name: sessionCookie, Value: id, Path: "/", HttpOnly: true,
		SameSite: http.SameSiteLaxMode, Secure: s.overHTTPS(c.Request()), MaxAge: 400 * 24 * 3600,
	})
	c.Set(sessionCookie, id)
	return id, nil
}

// overHTTPS reports whether the browser reached the app over HTTPS: the
// server is configured to say so, the connection is TLS, or a trusted proxy
// says so in X-Forwarded-Proto. The header is ignored from anyone else, who
// could otherwise choose the cookie's flags and the origin a write must come
// from (refuseCrossOrigin).
func (s *Server) overHTTPS(r *http.Request) bool {
	if s.secure || r.TLS != nil {
		return true
	}
	return s.proxies.trusts(r.RemoteAddr) && r.Header.Get("X-Forwarded-Proto") == "https"
}
