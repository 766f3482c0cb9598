package transport

import (
	"net/http"
	"regexp"

	"github.com/labstack/echo/v4"

	"github.com/sweatpants-go/sweatpants/backend/chat"
)

const sessionCookie = "sp_session"

var validSession = regexp.MustCompile(`^[0-9a-f]{32}$`)

// session makes sure every browser has a session: an HttpOnly cookie whose
// value owns the conversations created with it. A request with no valid
// cookie gets a new session, which owns nothing yet.
func (s *Server) session(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		if ck, err := c.Cookie(sessionCookie); err == nil && validSession.MatchString(ck.Value) {
			c.Set(sessionCookie, ck.Value)
			return next(c)
		}
		id := chat.NewSessionID()
		c.SetCookie(&http.Cookie{
			Name: sessionCookie, Value: id, Path: "/", HttpOnly: true,
			SameSite: http.SameSiteLaxMode, Secure: s.secure, MaxAge: 400 * 24 * 3600,
		})
		c.Set(sessionCookie, id)
		return next(c)
	}
}

func sessionOf(c echo.Context) string {
	id, _ := c.Get(sessionCookie).(string)
	return id
}
