package transport

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/labstack/echo/v4"

	"github.com/sweatpants-go/sweatpants/internal/apperr"
)

// How a failed request is answered: what the server cannot do for now
// (its disk full, its database unreachable, the request cut short as its
// conversation moved or the server stops) is told with its own status and
// words, and 503s say when to try again; only a fault is the generic 500.
func TestAFailureIsAnsweredWithWhatIsWrong(t *testing.T) {
	full := apperr.Errorf(apperr.NoRoom, "Nothing can be saved just now: the disk is full.")
	lost := apperr.Errorf(apperr.Unavailable, "The server lost its connection to the database.")
	for _, tc := range []struct {
		name       string
		err        error
		cut        bool // the request's context ended
		code       int
		msg        string
		retryAfter bool
	}{
		{"disk full", fmt.Errorf("send: %w", full), false, http.StatusInsufficientStorage, full.Message, false},
		{"database lost", fmt.Errorf("send: %w", lost), false, http.StatusServiceUnavailable, lost.Message, true},
		{"cut short", fmt.Errorf("load: %w", context.Canceled), true, http.StatusServiceUnavailable, cutMessage, true},
		{"a deadline of its own", fmt.Errorf("call: %w", context.DeadlineExceeded), false, http.StatusInternalServerError, apperr.MessageOf(errors.New("")), false},
		{"a fault", errors.New("boom"), false, http.StatusInternalServerError, apperr.MessageOf(errors.New("")), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithCancelCause(context.Background())
			if tc.cut {
				cancel(errors.New("the conversation's lease was lost"))
			}
			defer cancel(nil)
			req := httptest.NewRequestWithContext(ctx, http.MethodPost, "/c/0123456789abcdef/messages", nil)
			rec := httptest.NewRecorder()
			s := &Server{log: slog.New(slog.DiscardHandler)}
			s.handleError(tc.err, echo.New().NewContext(req, rec))
			body, _ := io.ReadAll(rec.Body)
			if rec.Code != tc.code || string(body) != tc.msg {
				t.Errorf("got %d %q, want %d %q", rec.Code, body, tc.code, tc.msg)
			}
			if got := rec.Header().Get("Retry-After") != ""; got != tc.retryAfter {
				t.Errorf("Retry-After given: %v, want %v", got, tc.retryAfter)
			}
		})
	}
}
