// Package llmtest runs an in-process, OpenAI-compatible chat completions
// server for tests. It speaks the real wire format, streamed or not, so the
// client under test is exercised for real, and it answers each request with
// the next Reply of its script.
package llmtest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
)

// Server is a scripted OpenAI-compatible server. It is closed when the test
// that made it ends.
type Server struct {
	// URL is the API's base URL, ending in "/v1": what OPENAI_BASE_URL or
	// a client's base URL should be.
	URL string

	t    testing.TB
	srv  *httptest.Server
	done chan struct{}

	mu       sync.Mutex
	script   []Reply
	requests []Request
	gate     func(ctx context.Context) bool
}

// Gate holds each streamed chunk of text until pass returns, so that a
// test says how far a reply has streamed without timing; pass returns
// false to end the stream there (the request was cancelled). It applies
// to the replies streamed from then on.
func (s *Server) Gate(pass func(ctx context.Context) bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.gate = pass
}

// NewServer starts a server that answers POST /v1/chat/completions with the
// replies of script, in order. A request beyond the script, or to another
// route, fails the test.
func NewServer(t testing.TB, script ...Reply) *Server {
	t.Helper()
	s := &Server{t: t, script: script, done: make(chan struct{})}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	s.URL = s.srv.URL + "/v1"
	t.Cleanup(func() {
		close(s.done) // Releases replies that Hold.
		s.srv.Close()
	})
	return s
}

// Add appends replies to the script.
func (s *Server) Add(replies ...Reply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.script = append(s.script, replies...)
}

// Requests returns the chat completion requests received so far, in order.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.URL.Path != "/v1/chat/completions" {
		s.t.Errorf("llmtest: unexpected %s %s", r.Method, r.URL.Path)
		writeError(w, http.StatusNotFound, "invalid_request_error", "unknown route "+r.URL.Path)
		return
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		// The client went away while it sent the request (its call was
		// cancelled): there is no request to answer, and nothing wrong
		// with the wire format.
		return
	}
	var req Request
	if err := json.Unmarshal(body, &req); err != nil {
		s.t.Errorf("llmtest: decode request: %v", err)
		writeError(w, http.StatusBadRequest, "invalid_request_error", "cannot decode the request")
		return
	}
	req.Header = r.Header.Clone()
	req.Body = bytes.Clone(body)

	s.mu.Lock()
	s.requests = append(s.requests, req)
	n := len(s.requests)
	var reply Reply
	ok := n <= len(s.script)
	if ok {
		reply = s.script[n-1]
		reply.gate = s.gate
	}
	s.mu.Unlock()
	if !ok {
		s.t.Errorf("llmtest: request %d has no reply; the script has %d", n, n-1)
		writeError(w, http.StatusInternalServerError, "server_error", "llmtest: script exhausted")
		return
	}
	reply.write(w, r, req, s.done)
}

// Request is a chat completion request as the server decoded it.
type Request struct {
	Model         string         `json:"model"`
	Messages      []Message      `json:"messages"`
	Stream        bool           `json:"stream"`
	StreamOptions *StreamOptions `json:"stream_options"`
	MaxTokens     int            `json:"max_tokens"`
	Temperature   *float64       `json:"temperature"`
	Logprobs      bool           `json:"logprobs"`
	Tools         []Tool         `json:"tools"`
	// ToolChoice is the tool_choice as sent: a JSON string such as "auto"
	// or an object naming a function.
	ToolChoice     json.RawMessage `json:"tool_choice"`
	ResponseFormat *ResponseFormat `json:"response_format"`

	// Header holds the HTTP headers, such as Authorization.
	Header http.Header `json:"-"`
	// Body is the request body as sent.
	Body []byte `json:"-"`
}

// Tool is a tool a Request offers the model.
type Tool struct {
	Type     string `json:"type"`
	Function struct {
		Name        string          `json:"name"`
		Description string          `json:"description"`
		Parameters  json.RawMessage `json:"parameters"`
	} `json:"function"`
}

// ResponseFormat is the response_format of a Request; JSONSchema is set
// when Type is "json_schema".
type ResponseFormat struct {
	Type       string `json:"type"`
	JSONSchema *struct {
		Name        string          `json:"name"`
		Description string          `json:"description"`
		Schema      json.RawMessage `json:"schema"`
		Strict      bool            `json:"strict"`
	} `json:"json_schema"`
}

// StreamOptions are the stream options of a Request.
type StreamOptions struct {
	IncludeUsage bool `json:"include_usage"`
}

// Message is one message of a Request. Content joins the text parts of a
// message sent as parts, and Images are the URLs of its image parts, in
// order (a picture sent inline is a data URL, "data:image/png;base64,…");
// ToolCalls are an assistant message's calls and ToolCallID names the call
// a tool message answers.
type Message struct {
	Role       string     `json:"role"`
	Content    string     `json:"content"`
	Images     []string   `json:"images,omitempty"`
	ToolCalls  []ToolCall `json:"tool_calls,omitempty"`
	ToolCallID string     `json:"tool_call_id,omitempty"`
}

// UnmarshalJSON reads content given as a string or as an array of parts.
func (m *Message) UnmarshalJSON(b []byte) error {
	var wire struct {
		Role       string          `json:"role"`
		Content    json.RawMessage `json:"content"`
		ToolCalls  []wireToolCall  `json:"tool_calls"`
		ToolCallID string          `json:"tool_call_id"`
	}
	if err := json.Unmarshal(b, &wire); err != nil {
		return err
	}
	*m = Message{Role: wire.Role, ToolCallID: wire.ToolCallID}
	for _, c := range wire.ToolCalls {
		m.ToolCalls = append(m.ToolCalls, ToolCall{ID: c.ID, Name: c.Function.Name, Arguments: c.Function.Arguments})
	}
	if len(wire.Content) == 0 || wire.Content[0] != '[' {
		return json.Unmarshal(orNull(wire.Content), &m.Content)
	}
	var parts []struct {
		Type     string `json:"type"`
		Text     string `json:"text"`
		ImageURL *struct {
			URL string `json:"url"`
		} `json:"image_url"`
	}
	if err := json.Unmarshal(wire.Content, &parts); err != nil {
		return err
	}
	for _, p := range parts {
		switch p.Type {
		case "image_url":
			if p.ImageURL == nil {
				return errors.New("an image_url part without its image_url")
			}
			m.Images = append(m.Images, p.ImageURL.URL)
		default:
			m.Content += p.Text
		}
	}
	return nil
}

func orNull(b []byte) []byte {
	if len(b) == 0 {
		return []byte("null")
	}
	return b
}
