// Package transport is the backend-driven browser transport: templ pages,
// one Datastar SSE stream per open conversation page that carries every
// change, and POST commands for everything the user does.
package transport

import (
	"log/slog"
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/sweatpants-go/sweatpants/backend/chat"
	"github.com/sweatpants-go/sweatpants/web/templates"
)

// DefaultMaxBody is the largest request body a command accepts.
const DefaultMaxBody = 64 << 10

// Config holds what the server needs.
type Config struct {
	Chat    *chat.Service
	Log     *slog.Logger
	MaxBody int64 // bytes; DefaultMaxBody when 0
	// SecureCookies marks the session cookie Secure, for serving over HTTPS.
	SecureCookies bool
	// ElicitComponents are the browser components of the application's own
	// elicit kinds.
	ElicitComponents templates.ElicitComponents
}

// Server serves the app.
type Server struct {
	chat    *chat.Service
	log     *slog.Logger
	maxBody int64
	secure  bool
	echo    *echo.Echo
}

// NewServer returns the app's HTTP handler. Cross-origin state-changing
// requests are refused before they reach a route.
func NewServer(cfg Config) http.Handler {
	if cfg.MaxBody == 0 {
		cfg.MaxBody = DefaultMaxBody
	}
	s := &Server{chat: cfg.Chat, log: cfg.Log, maxBody: cfg.MaxBody, secure: cfg.SecureCookies, echo: echo.New()}
	s.echo.HideBanner, s.echo.HidePort = true, true
	s.echo.HTTPErrorHandler = s.handleError
	// Every page and patch is rendered with the request's context, so the
	// application's components travel in it.
	s.echo.Use(func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			r := c.Request()
			c.SetRequest(r.WithContext(templates.WithElicitComponents(r.Context(), cfg.ElicitComponents)))
			return next(c)
		}
	})
	s.routes()
	cop := http.NewCrossOriginProtection()
	cop.SetDenyHandler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "This request came from another site and was refused.", http.StatusForbidden)
	}))
	return cop.Handler(s.echo)
}
