package openai

import (
	"context"
	"errors"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"time"

	goopenai "github.com/sashabaranov/go-openai"

	"github.com/sweatpants-go/sweatpants/llm"
)

const (
	// firstBackoff bounds the wait before the first retry; each retry
	// doubles it, up to MaxBackoff.
	firstBackoff = 500 * time.Millisecond
	// maxRetryAfter is the longest Retry-After honoured: an endpoint that
	// asks for more is unavailable for longer than a user waits, and the
	// error says so at once.
	maxRetryAfter = 30 * time.Second
)

// retried reports whether a failed attempt is worth repeating: a failure
// that may pass, except a timeout, after which the caller has waited long
// enough.
func retried(err error, failure *llm.Error) bool {
	var timeout timeoutError
	return failure.Retryable && !errors.As(err, &timeout)
}

// backoff returns how long to wait before retry number retry+1: the
// endpoint's Retry-After when it gave one, and otherwise a random time up
// to an exponential bound ("full jitter", so that clients failed together
// do not come back together). It reports false when the endpoint asks for
// a wait beyond maxRetryAfter.
func (p *Provider) backoff(retry int, retryAfter string) (time.Duration, bool) {
	if d, ok := parseRetryAfter(retryAfter, p.now()); ok {
		return d, d <= maxRetryAfter
	}
	bound := p.maxBackoff
	if retry < 30 && firstBackoff<<retry < bound {
		bound = firstBackoff << retry
	}
	return rand.N(bound + 1), true
}

// parseRetryAfter reads a Retry-After header: a number of seconds or an
// HTTP date. A date in the past means no wait.
func parseRetryAfter(v string, now time.Time) (time.Duration, bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, false
	}
	if s, err := strconv.ParseUint(v, 10, 32); err == nil {
		return time.Duration(s) * time.Second, true
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(t.Sub(now), 0), true
	}
	return 0, false
}

// sleep waits d, or returns ctx.Err() as soon as ctx is done.
func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// answerHeaders holds the headers of an attempt's answer that go-openai
// does not pass on. An attempt puts one in its request's context under
// answerHeadersKey, for headerRecorder to fill.
type answerHeaders struct {
	retryAfter string
}

type answerHeadersKey struct{}

// headerRecorder makes the HTTP calls of go-openai, which keeps no
// response headers with its errors, and keeps the Retry-After of each
// answer.
type headerRecorder struct {
	next goopenai.HTTPDoer
}

func (r headerRecorder) Do(req *http.Request) (*http.Response, error) {
	resp, err := r.next.Do(req)
	if h, ok := req.Context().Value(answerHeadersKey{}).(*answerHeaders); ok && err == nil {
		h.retryAfter = resp.Header.Get("Retry-After")
	}
	return resp, err
}
