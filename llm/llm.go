// Package llm is the small interface every model provider implements and the
// types of a chat completion. The providers are its subpackages: offline, a
// deterministic provider for demos and tests, and openai, for any
// OpenAI-compatible endpoint. Code that only calls a model imports llm alone
// and links no provider's SDK.
package llm

import (
	"cmp"
	"context"
	"encoding/json"
)

// Role says who wrote a message.
type Role string

// The roles a chat message can have.
const (
	System    Role = "system"
	User      Role = "user"
	Assistant Role = "assistant"
	// Tool is the role of a tool call's result, sent back to the model.
	Tool Role = "tool"
)

// Message is one message of a chat conversation. An assistant message may
// carry the tool calls the model made; a tool message carries one call's
// result in Content and names the call in ToolCallID.
type Message struct {
	Role       Role       `json:"role"`
	Content    string     `json:"content"`
	ToolCalls  []ToolCall `json:"tool_calls,omitempty"`
	ToolCallID string     `json:"tool_call_id,omitempty"`
	// Images are, on a user message, pictures sent with it, for models
	// that take them (image parts of the OpenAI wire format); Content is
	// the message's text, attachments read as text included.
	Images []Image `json:"images,omitempty"`
}

// Image is a picture given to the model: its content type and the file it
// is, which is what a model call's record keeps; Data is filled from the
// file just before the call, never recorded, and sent as a data URL. Name,
// Width and Height are what the history read of the file: the name a note
// uses when the picture is left out, and the size it is sent at, which its
// tokens are counted by. They are not recorded either: they follow from
// the file.
type Image struct {
	Type   string `json:"type"`
	File   string `json:"file"`
	Data   []byte `json:"-"`
	Name   string `json:"-"`
	Width  int    `json:"-"`
	Height int    `json:"-"`
}

// ToolSpec offers the model a tool: its name, what it is for, and the JSON
// Schema of its input.
type ToolSpec struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Parameters  json.RawMessage `json:"parameters"`
}

// ToolCall is a call of a tool the model made. Arguments is the JSON the
// model wrote, kept as text: a model can write malformed JSON, and the
// tool's caller is the one to refuse it.
type ToolCall struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

// The tool choices besides a tool's name, which makes the model call that
// tool.
const (
	ToolAuto     = "auto"     // the model decides (the default when tools are offered)
	ToolNone     = "none"     // the model may not call a tool
	ToolRequired = "required" // the model must call at least one tool
)

// OutputSchema asks for a reply that is one JSON value satisfying Schema,
// a JSON Schema; Name names it to the provider.
type OutputSchema struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Schema      json.RawMessage `json:"schema"`
}

// Request is one chat completion request. Model, when empty, is the
// provider's default model.
type Request struct {
	Model       string    `json:"model,omitempty"`
	Messages    []Message `json:"messages"`
	MaxTokens   int       `json:"max_tokens,omitempty"`
	Temperature *float32  `json:"temperature,omitempty"`
	Logprobs    bool      `json:"logprobs,omitempty"`
	// Tools are offered to the model, which may answer with calls of them
	// instead of (or besides) text.
	Tools []ToolSpec `json:"tools,omitempty"`
	// ToolChoice is ToolAuto, ToolNone, ToolRequired or a tool's name;
	// empty is the provider's default (auto when tools are offered).
	ToolChoice string `json:"tool_choice,omitempty"`
	// Output, when set, asks for a JSON reply satisfying its schema.
	Output *OutputSchema `json:"output,omitempty"`
}

// Usage counts the tokens of one completion.
type Usage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
	TotalTokens      int `json:"total_tokens"`
}

// Response is the whole answer to a Request.
type Response struct {
	Content      string `json:"content"`
	Model        string `json:"model"`
	Provider     string `json:"provider"`
	FinishReason string `json:"finish_reason"`
	Usage        Usage  `json:"usage"`
	// Logprob is the mean log probability of the completion's tokens, set
	// only when the request asked for logprobs and the provider gave them.
	Logprob *float64 `json:"logprob,omitempty"`
	// ToolCalls are the calls the model made, in its order; FinishReason is
	// then "tool_calls".
	ToolCalls []ToolCall `json:"tool_calls,omitempty"`
}

// Label is how the pages name p: its Label, when it has one that says more
// than its name (the model and the endpoint), else its Name.
func Label(p Provider) string {
	if l, ok := p.(interface{ Label() string }); ok {
		return l.Label()
	}
	return p.Name()
}

// ModelName names p's model for the chat's pages: the model alone, as
// "gpt-4o-mini", when p has a Label (a model and its endpoint) and says
// which model (as openai's does); any other provider by its Name, never
// where it is served from, which is for developers (Label).
func ModelName(p Provider) string {
	_, labelled := p.(interface{ Label() string })
	if m, ok := p.(interface{ Model() string }); labelled && ok && m.Model() != "" {
		return m.Model()
	}
	return p.Name()
}

// Provider completes chat requests.
type Provider interface {
	// Name names the provider, such as "offline" or "openai".
	Name() string
	// Complete answers req. When onDelta is non-nil it receives the text in
	// order as it streams, from the calling goroutine; the returned Response
	// always holds the whole text and the tool calls, assembled from their
	// streamed pieces. Complete returns ctx.Err() when ctx is cancelled and
	// an *Error when the provider fails.
	Complete(ctx context.Context, req Request, onDelta func(delta string)) (Response, error)
}

// Error is a provider failure. Message is safe to show to a user: it never
// holds credentials.
type Error struct {
	Provider string
	// Model is the model the failed call asked for, as configured; empty
	// when the provider's endpoint chose.
	Model string
	// Endpoint is where the failed call went, as configured: an endpoint's
	// host, such as "localhost:11434", never its path or credentials; empty
	// for a provider that calls none. A host is for those who run the app
	// (logs, the calls page): Error names it, Source does not.
	Endpoint string
	// Status is the HTTP status of the failed call, or 0 when there was none.
	Status int
	// Retryable says whether the same request may succeed later, as after a
	// rate limit, a server error or a dropped connection.
	Retryable bool
	Message   string
}

// Error implements error. It names the endpoint, as Label does, for the
// log and the calls page: "openai (llama3.2 @ localhost:11434): …".
func (e *Error) Error() string {
	if e.Endpoint == "" {
		return e.Provider + ": " + e.Message
	}
	return e.Provider + " (" + cmp.Or(e.Model, "the default model") + " @ " + e.Endpoint + "): " + e.Message
}

// Source names who failed in words any user of the chat may read: the
// endpoint by the model it serves, as configured, and not by its host,
// which the chat pages do not show; a provider that calls no endpoint by
// its name.
func (e *Error) Source() string {
	switch {
	case e.Endpoint == "":
		return e.Provider
	case e.Model == "":
		return "the model endpoint"
	}
	return "the endpoint serving " + e.Model
}
