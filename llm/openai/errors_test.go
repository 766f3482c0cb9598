package openai_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/sweatpants-go/sweatpants/llm"
	"github.com/sweatpants-go/sweatpants/llm/llmtest"
	"github.com/sweatpants-go/sweatpants/llm/openai"
)

func TestErrors(t *testing.T) {
	tests := []struct {
		name        string
		reply       llmtest.Reply
		stream      bool
		wantStatus  int
		wantRetry   bool
		wantMessage string
	}{
		{"rate limited", llmtest.Fail(429, "Rate limit reached for gpt-test."), false,
			429, true, "rate limited (status 429): Rate limit reached for gpt-test."},
		{"rate limited stream", llmtest.Fail(429, "Rate limit reached for gpt-test."), true,
			429, true, "rate limited (status 429): Rate limit reached for gpt-test."},
		{"server error", llmtest.Fail(500, "The server had an error."), false,
			500, true, "server error (status 500): The server had an error."},
		{"bad request", llmtest.Fail(400, "Invalid value for 'messages'."), false,
			400, false, "request rejected (status 400): Invalid value for 'messages'."},
		{"key echoed back is redacted", llmtest.Fail(401, "Incorrect API key provided: "+testKey+"."), false,
			401, false, "not authorized (status 401): Incorrect API key provided: [redacted]."},
		{"non-JSON error body", llmtest.Raw(502, "<html><h1>502 Bad Gateway</h1></html>"), false,
			502, true, "server error (status 502): <html><h1>502 Bad Gateway</h1></html>"},
		{"malformed JSON", llmtest.Raw(200, "{not json"), false,
			0, false, "malformed response from the model endpoint: invalid character 'n' looking for beginning of object key string"},
		{"truncated JSON", llmtest.Raw(200, `{"choices": [`), false,
			0, true, "the response broke off: unexpected EOF"},
		{"no choices", llmtest.Raw(200, `{"choices": []}`), false,
			0, false, "malformed response from the model endpoint: the response held no choices"},
		{"malformed stream chunk", llmtest.Raw(200, "data: {broken\n\n"), true,
			0, false, "malformed response from the model endpoint: invalid character 'b' looking for beginning of object key string"},
		{"stream cut short", llmtest.Reply{Chunks: []string{"Hel"}, Cut: true}, true,
			0, true, "the response broke off: the stream ended before the model finished"},
		{"an endless error message", llmtest.Fail(500, strings.Repeat("x", 1<<20)), false,
			500, true, "server error (status 500): " + strings.Repeat("x", 2<<10-len("server error (status 500): ")) + "…"},
		{"error inside stream", llmtest.Raw(200, "data: {\"error\": {\"message\": \"The server is overloaded.\", \"type\": \"server_error\"}}\n\n"), true,
			0, true, "error in stream: The server is overloaded."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := llmtest.NewServer(t, tt.reply)
			var onDelta func(string)
			if tt.stream {
				onDelta = func(string) {}
			}
			// Retries would hide the first error; retry_test.go tests them.
			p, _ := configured(srv, openai.Config{MaxRetries: -1})
			_, err := p.Complete(context.Background(), llm.Request{Messages: []llm.Message{user("hi")}}, onDelta)
			var got *llm.Error
			if !errors.As(err, &got) {
				t.Fatalf("got error %v (%T), want *llm.Error", err, err)
			}
			want := &llm.Error{Provider: "openai", Model: "gpt-test", Endpoint: strings.TrimPrefix(strings.TrimSuffix(srv.URL, "/v1"), "http://"),
				Status: tt.wantStatus, Retryable: tt.wantRetry, Message: tt.wantMessage}
			if *got != *want {
				t.Errorf("got  %+v\nwant %+v", *got, *want)
			}
			if strings.Contains(err.Error(), testKey) {
				t.Errorf("error %q leaks the API key", err)
			}
		})
	}
}

func TestUnreachable(t *testing.T) {
	closed := httptest.NewServer(http.NotFoundHandler())
	closed.Close()
	p := openai.New(openai.Config{APIKey: testKey, BaseURL: closed.URL + "/v1", Model: "gpt-test"})
	var w waits
	openai.SetSleep(p, w.sleep)
	_, err := p.Complete(context.Background(), llm.Request{Messages: []llm.Message{user("hi")}}, nil)
	if got := len(w.got()); got != openai.DefaultMaxRetries {
		t.Errorf("waited %d times, want %d: a refused connection is retried", got, openai.DefaultMaxRetries)
	}
	var got *llm.Error
	if !errors.As(err, &got) {
		t.Fatalf("got error %v (%T), want *llm.Error", err, err)
	}
	if !got.Retryable || got.Status != 0 || !strings.HasPrefix(got.Message, "cannot reach the model endpoint: ") {
		t.Errorf("got %+v, want a retryable error without status that says the endpoint is unreachable", *got)
	}
}

// A failure names the endpoint as configured: the model asked for and the
// endpoint's host, for the log and the calls page; in words for the chat,
// by the model alone, for a local endpoint that is not OpenAI's.
func TestAFailureNamesTheEndpointAsConfigured(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Fail(500, "The server had an error."))
	p := openai.New(openai.Config{APIKey: testKey, BaseURL: srv.URL, Model: "llama3.2", MaxRetries: -1})
	_, err := p.Complete(context.Background(), llm.Request{Messages: []llm.Message{user("hi")}}, nil)
	host := strings.TrimPrefix(strings.TrimSuffix(srv.URL, "/v1"), "http://")
	if got, want := err.Error(), "openai (llama3.2 @ "+host+"): server error (status 500): The server had an error."; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
	var e *llm.Error
	if !errors.As(err, &e) {
		t.Fatalf("got %T, want *llm.Error", err)
	}
	if got, want := e.Source(), "the endpoint serving llama3.2"; got != want {
		t.Errorf("Source() = %q, want %q", got, want)
	}
}
