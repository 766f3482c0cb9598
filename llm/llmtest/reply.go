package llmtest

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"time"
)

// Reply describes the server's answer to one request. The zero Reply is an
// empty answer that finishes with "stop".
type Reply struct {
	// Chunks is the answer's text: one stream event per chunk, or joined
	// into one message when the request is not streamed.
	Chunks []string
	// gate is the server's (Server.Gate), for the reply being streamed.
	gate func(ctx context.Context) bool
	// Logprobs gives the log probability of each chunk, taken as one token.
	// They are sent only when the request asks for logprobs.
	Logprobs []float64
	// ToolCalls are function calls the model makes after its text, all in
	// one message (or one stream event) as parallel calls are.
	ToolCalls []ToolCall
	// SplitArguments, when positive, streams each tool call over several
	// events as OpenAI does: the first names the call (index, id, name) and
	// each carries at most SplitArguments bytes of its arguments.
	SplitArguments int
	// FinishReason defaults to "stop", or "tool_calls" with ToolCalls.
	FinishReason string
	// Usage defaults to the words of the request's messages as prompt
	// tokens and the chunks as completion tokens. A stream carries it only
	// when the request sets stream_options.include_usage.
	Usage *Usage
	// Model defaults to the requested model.
	Model string

	// Status, when 400 or more, fails the request with an OpenAI error
	// object holding ErrorType and ErrorMessage.
	Status       int
	ErrorType    string
	ErrorMessage string
	// Body, when set, is sent verbatim instead, with Status or 200, as
	// text/event-stream to a streamed request: for malformed answers.
	Body string
	// Header is added to the response's headers, such as Retry-After.
	Header http.Header

	// Delay holds the answer back this long, or until the client gives up
	// (which is what a test of a timeout waits for) or the test ends.
	Delay time.Duration

	// Gap spaces a streamed answer's chunks this far apart, as a model
	// writing at its own pace does.
	Gap time.Duration

	// Cut ends a streamed answer after its chunks, with neither a finish
	// reason nor [DONE], as a dropped connection would.
	Cut bool
	// Drop closes the connection without a word, as a network failure
	// would: a streamed answer after its chunks, midway through its body,
	// and an unstreamed one before its status line.
	Drop bool
	// Hold keeps a streamed answer open after its chunks until the client
	// goes away, for testing cancellation.
	Hold bool
}

// ToolCall is one function call of a Reply.
type ToolCall struct {
	ID        string
	Name      string
	Arguments string // JSON
}

// Usage is the token count of a Reply.
type Usage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
	TotalTokens      int `json:"total_tokens"`
}

// Call is a Reply that calls the tool name with arguments (JSON), as a
// model driving an agent does.
func Call(name, arguments string) Reply {
	return Reply{ToolCalls: []ToolCall{{ID: "call_" + name, Name: name, Arguments: arguments}}}
}

// Text is a Reply that answers with chunks of text.
func Text(chunks ...string) Reply { return Reply{Chunks: chunks} }

// Fail is a Reply that fails with status and an OpenAI error object of the
// type the real API uses for that status.
func Fail(status int, message string) Reply {
	typ := "invalid_request_error"
	switch {
	case status == http.StatusTooManyRequests:
		typ = "requests"
	case status >= 500:
		typ = "server_error"
	}
	return Reply{Status: status, ErrorType: typ, ErrorMessage: message}
}

// Raw is a Reply that sends body verbatim with status.
func Raw(status int, body string) Reply { return Reply{Status: status, Body: body} }

// RateLimited is a Reply that fails with status 429 and a Retry-After
// header holding retryAfter: seconds or an HTTP date.
func RateLimited(retryAfter string) Reply {
	r := Fail(http.StatusTooManyRequests, "Rate limit reached for gpt-test.")
	r.Header = http.Header{"Retry-After": {retryAfter}}
	return r
}

func (r Reply) write(w http.ResponseWriter, req *http.Request, in Request, done <-chan struct{}) {
	if r.Delay > 0 && !wait(req, r.Delay, done) {
		return
	}
	for k, vs := range r.Header {
		w.Header()[http.CanonicalHeaderKey(k)] = vs
	}
	switch {
	case r.Drop && !in.Stream:
		drop(w)
	case r.Body != "":
		ct := "application/json"
		if in.Stream {
			ct = "text/event-stream"
		}
		w.Header().Set("Content-Type", ct)
		w.WriteHeader(max(r.Status, http.StatusOK))
		fmt.Fprint(w, r.Body)
	case r.Status >= 400:
		writeError(w, r.Status, r.ErrorType, r.ErrorMessage)
	case in.Stream:
		r.stream(w, req, in, done)
	default:
		writeJSON(w, http.StatusOK, r.completion(in))
	}
}

func (r Reply) finishReason() string {
	switch {
	case r.FinishReason != "":
		return r.FinishReason
	case len(r.ToolCalls) > 0:
		return "tool_calls"
	default:
		return "stop"
	}
}

func (r Reply) model(in Request) string {
	if r.Model != "" {
		return r.Model
	}
	return in.Model
}

func (r Reply) usage(in Request) Usage {
	if r.Usage != nil {
		return *r.Usage
	}
	prompt := 0
	for _, m := range in.Messages {
		prompt += len(strings.Fields(m.Content))
	}
	return Usage{PromptTokens: prompt, CompletionTokens: len(r.Chunks), TotalTokens: prompt + len(r.Chunks)}
}

// wait waits d and reports true, or reports false as soon as the client
// goes away or the test ends.
func wait(req *http.Request, d time.Duration, done <-chan struct{}) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-req.Context().Done():
	case <-done:
	}
	return false
}

// drop closes the connection under w at once, without ending the response.
func drop(w http.ResponseWriter) {
	conn, _, err := http.NewResponseController(w).Hijack()
	if err != nil {
		// Without the connection, aborting the handler is the next best
		// way to break the response off; the server recovers from it.
		panic(http.ErrAbortHandler)
	}
	conn.Close()
}
