package transport

import (
	"cmp"
	"net/http"
	"regexp"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/sweatpants-go/sweatpants/internal/web/templates"
)

const (
	sessionCookie = "sp_session"
	cookieSent    = "sp_session_sent" // the id the cookie carried, before resolving
)

var validSession = regexp.MustCompile(`^[0-9a-f]{32}$`)

// session reads the browser's session from its HttpOnly cookie and asks the
// service which session that id stands for now: a made-up id, or one that
// moved on, stands for none, and a request with no session owns nothing.
// An id rotated a moment ago stands for its successor (see
// chat.SessionHandoff); the answer then carries the successor's cookie, so
// the tab that sent the old one is moved along. Nothing here records: a
// session is issued only when a conversation starts (startSession), so a
// visit that starts nothing (any cross-site <img>) costs no row.
func (s *Server) session(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		if ownsNothing(c.Path()) {
			return next(c) // no session read for what every session shares
		}
		// A signed-in browser owns what its account owns; its own cookie
		// session, if any, is not read (signing in claimed it).
		a, ok, err := s.signedInAccount(c)
		if err != nil {
			return err
		}
		if s.signin.Accounts != nil {
			shown := templates.SignedIn{Offered: true}
			if s.signin.OIDC != nil {
				shown.SignInURL = "/signin"
			}
			if ok {
				shown.Name = cmp.Or(a.Name, a.Email, "signed in")
				shown.Operator = a.Operator && s.signin.Desk != nil
			}
			c.SetRequest(c.Request().WithContext(templates.WithSignedIn(c.Request().Context(), shown)))
		}
		if ok {
			c.Set(accountKey, a)
			c.Set(sessionCookie, a.ID)
			if err := s.look(c, a); err != nil {
				return err
			}
			if secret, ok := signinSecret(c); ok && longLived(c.Path()) {
				stop := s.watchSignin(c, secret)
				defer stop()
			}
			return next(c)
		}
		ck, err := c.Cookie(sessionCookie)
		if err != nil || !validSession.MatchString(ck.Value) {
			return next(c)
		}
		c.Set(cookieSent, ck.Value)
		id, err := s.chat.Session(c.Request().Context(), ck.Value, s.clientAddr(c.Request()))
		if err != nil {
			return err
		}
		if id != "" && id != ck.Value {
			s.setSessionCookie(c, id)
		}
		if id != "" {
			c.Set(sessionCookie, id)
		}
		return next(c)
	}
}

// ownsNothing reports whether route answers the same to every session: the
// page's scripts and styles and the health checks, which a page load asks
// for several times and which need no read of the session, and a shared
// link, whose reader is nobody's session.
func ownsNothing(route string) bool {
	return strings.HasPrefix(route, "/static/") || route == "/healthz" || route == "/readyz" || route == "/s/:token"
}

func sessionOf(c echo.Context) string {
	id, _ := c.Get(sessionCookie).(string)
	return id
}

// startSession gives the browser a session id of its own, issued and
// recorded by the service, that takes over the conversations of the one its
// cookie carried (if the server issued that one). Rotating on every new
// conversation means an id planted in the browser by someone else never owns
// what its user starts. A signed-in browser's session is its account's,
// never rotated. The id the cookie carried is handed over as sent,
// not as resolved: two chats started at once with the same cookie must end
// on the same successor.
func (s *Server) startSession(c echo.Context) (string, error) {
	if a, ok := accountOf(c); ok {
		return a.ID, nil // an account's conversations stay the account's
	}
	if s.signin.Required {
		return "", signInFirst()
	}
	sent, _ := c.Get(cookieSent).(string)
	id, err := s.chat.RotateSession(c.Request().Context(), sent, s.clientAddr(c.Request()))
	if err != nil {
		return "", err
	}
	s.setSessionCookie(c, id)
	c.Set(sessionCookie, id)
	return id, nil
}

func (s *Server) setSessionCookie(c echo.Context, id string) {
	c.SetCookie(&http.Cookie{
		Name: sessionCookie, Value: id, Path: "/", HttpOnly: true,
		SameSite: http.SameSiteLaxMode, Secure: s.overHTTPS(c.Request()), MaxAge: 400 * 24 * 3600,
	})
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
