package openai

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"time"

	goopenai "github.com/sashabaranov/go-openai"

	"github.com/sweatpants-go/sweatpants/llm"
)

var (
	errNoChoices = errors.New("the response held no choices")
	errStreamCut = errors.New("the stream ended before the model finished")
)

// timeoutError is an attempt that took longer than the provider's Timeout.
type timeoutError struct {
	after time.Duration
}

func (e timeoutError) Error() string {
	return "no complete answer within " + e.after.String()
}

// fail turns a failure of go-openai or of the endpoint into an *llm.Error whose
// message names what went wrong and never holds the API key; it names the
// model asked for and the endpoint's host, as configured, so that a
// failure of a local endpoint is not taken for OpenAI's.
func (p *Provider) fail(err error, model string) *llm.Error {
	e := classify(err)
	e.Provider, e.Model, e.Endpoint = p.Name(), model, p.host
	if p.key != "" {
		e.Message = strings.ReplaceAll(e.Message, p.key, "[redacted]")
	}
	e.Message = clip(e.Message, maxMessage)
	return e
}

// maxMessage bounds an error's message, in bytes: an endpoint's own words
// are recorded and shown, and an endpoint gone wrong may send megabytes.
const maxMessage = 2 << 10

func classify(err error) *llm.Error {
	var (
		timeout timeoutError
		apiErr  *goopenai.APIError
		reqErr  *goopenai.RequestError
		netErr  net.Error
		synErr  *json.SyntaxError
		typErr  *json.UnmarshalTypeError
	)
	switch {
	case errors.As(err, &timeout):
		return &llm.Error{Retryable: true, Message: "the model endpoint timed out: " + err.Error()}
	case errors.As(err, &apiErr) && apiErr.HTTPStatusCode == 0:
		// An error event inside a stream has no status of its own.
		return &llm.Error{Retryable: apiErr.Type != "invalid_request_error", Message: "error in stream: " + apiErr.Message}
	case errors.As(err, &apiErr):
		return statusError(apiErr.HTTPStatusCode, apiErr.Message)
	case errors.As(err, &reqErr):
		return statusError(reqErr.HTTPStatusCode, snippet(reqErr.Body))
	case errors.Is(err, errStreamCut), errors.Is(err, io.ErrUnexpectedEOF):
		return &llm.Error{Retryable: true, Message: "the response broke off: " + err.Error()}
	case errors.As(err, &netErr):
		return &llm.Error{Retryable: true, Message: "cannot reach the model endpoint: " + err.Error()}
	case errors.As(err, &synErr), errors.As(err, &typErr), errors.Is(err, errNoChoices),
		errors.Is(err, goopenai.ErrTooManyEmptyStreamMessages):
		return &llm.Error{Message: "malformed response from the model endpoint: " + err.Error()}
	default:
		return &llm.Error{Message: err.Error()}
	}
}

// statusError describes a failed HTTP call. Rate limits and server errors
// may pass with time; other refusals will not.
func statusError(status int, detail string) *llm.Error {
	var what string
	switch {
	case status == http.StatusTooManyRequests:
		what = "rate limited"
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		what = "not authorized"
	case status == http.StatusNotFound:
		what = "not found"
	case status >= 500:
		what = "server error"
	default:
		what = "request rejected"
	}
	if detail == "" {
		detail = strings.ToLower(http.StatusText(status))
	}
	return &llm.Error{
		Status:    status,
		Retryable: status == http.StatusTooManyRequests || status >= 500,
		Message:   fmt.Sprintf("%s (status %d): %s", what, status, detail),
	}
}

// snippet returns the start of a body that was not an OpenAI error object.
func snippet(body []byte) string {
	return clip(strings.Join(strings.Fields(string(body)), " "), 200)
}

// clip returns s, or its first limit bytes and "…" when it is longer.
func clip(s string, limit int) string {
	if len(s) <= limit {
		return s
	}
	return strings.ToValidUTF8(s[:limit], "") + "…"
}
