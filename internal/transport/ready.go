package transport

import (
	"context"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/sweatpants-go/sweatpants/internal/apperr"
)

// Readiness is what a Chat also implements for GET /readyz to ask whether
// the app can answer: Ready returns nil once it can (the application's
// store answers a query and can write), an error while it cannot, coded
// (apperr) when its message says why for the operator to read.
type Readiness interface {
	Ready(ctx context.Context) error
}

// readyTimeout bounds the readiness check: a database that takes longer
// to answer a trivial query is not ready to serve anyone.
const readyTimeout = 2 * time.Second

// ready answers GET /readyz: 200 when the Chat is ready (or cannot say),
// 503 when it is not. /healthz says the process serves; this says it can
// do its work, for a load balancer to send it traffic.
func (s *Server) ready(c echo.Context) error {
	if r, ok := s.chat.(Readiness); ok {
		ctx, cancel := context.WithTimeout(c.Request().Context(), readyTimeout)
		defer cancel()
		if err := r.Ready(ctx); err != nil {
			if s.log != nil {
				s.log.Warn("not ready", "err", err)
			}
			why := "the database does not answer"
			if apperr.CodeOf(err) != apperr.Internal {
				why = apperr.MessageOf(err)
			}
			return c.String(http.StatusServiceUnavailable, "not ready: "+why)
		}
	}
	return c.String(http.StatusOK, "ready")
}
