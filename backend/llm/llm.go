// Package llm is the small interface every model provider implements and the
// types of a chat completion. The providers are its subpackages: offline, a
// deterministic provider for demos and tests, and openai, for any
// OpenAI-compatible endpoint. Code that only calls a model imports llm alone
// and links no provider's SDK.
package llm

import "context"

// Role says who wrote a message.
type Role string

// The roles a chat message can have.
const (
	System    Role = "system"
	User      Role = "user"
	Assistant Role = "assistant"
)

// Message is one message of a chat conversation.
type Message struct {
	Role    Role   `json:"role"`
	Content string `json:"content"`
}

// Request is one chat completion request. Model, when empty, is the
// provider's default model.
type Request struct {
	Model       string    `json:"model,omitempty"`
	Messages    []Message `json:"messages"`
	MaxTokens   int       `json:"max_tokens,omitempty"`
	Temperature *float32  `json:"temperature,omitempty"`
	Logprobs    bool      `json:"logprobs,omitempty"`
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
}

// Provider completes chat requests.
type Provider interface {
	// Name names the provider, such as "offline" or "openai".
	Name() string
	// Complete answers req. When onDelta is non-nil it receives the text in
	// order as it streams, from the calling goroutine; the returned Response
	// always holds the whole text. Complete returns ctx.Err() when ctx is
	// cancelled and an *Error when the provider fails.
	Complete(ctx context.Context, req Request, onDelta func(delta string)) (Response, error)
}

// Error is a provider failure. Message is safe to show to a user: it never
// holds credentials.
type Error struct {
	Provider string
	// Status is the HTTP status of the failed call, or 0 when there was none.
	Status int
	// Retryable says whether the same request may succeed later, as after a
	// rate limit, a server error or a dropped connection.
	Retryable bool
	Message   string
}

// Error implements error.
func (e *Error) Error() string {
	return e.Provider + ": " + e.Message
}
