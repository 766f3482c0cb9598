package transport

import (
	"strings"
	"time"

	"github.com/labstack/echo/v4"
)

// accessLog logs each request at info level once it is answered: the
// method, the route (its pattern, so that ids do not make every line
// unique), the status, how long it took and the conversation it concerns.
// A stream's line comes when the page goes away. Static files and the
// health checks are left out: they say nothing about what users do.
func (s *Server) accessLog(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		start := time.Now()
		err := next(c)
		if err != nil {
			c.Error(err) // answered now, so the line has the status sent
		}
		route := c.Path()
		if route == "/healthz" || route == "/readyz" || route == "/metrics" || strings.HasPrefix(route, "/static/") {
			return nil
		}
		if route == "" {
			route = "(no route)"
		}
		attrs := []any{"method", c.Request().Method, "route", route, "status", c.Response().Status,
			"duration_ms", float64(time.Since(start).Microseconds()) / 1000}
		if id := c.Param("id"); id != "" {
			attrs = append(attrs, "conversation", id)
		}
		s.log.Info("request", attrs...)
		return nil
	}
}
