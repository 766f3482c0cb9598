package llm_test

import (
	"testing"

	"github.com/sweatpants-go/sweatpants/llm"
)

func TestErrorString(t *testing.T) {
	err := &llm.Error{Provider: "openai", Status: 429, Retryable: true, Message: "rate limited (status 429): slow down"}
	if got, want := err.Error(), "openai: rate limited (status 429): slow down"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

// Source names the endpoint by its model, never by its host; Error names
// both.
func TestErrorSource(t *testing.T) {
	tests := []struct {
		err               llm.Error
		source, errorText string
	}{
		{llm.Error{Provider: "openai", Model: "llama3.2", Endpoint: "10.0.0.7:11434", Message: "boom"}, "the endpoint serving llama3.2", "openai (llama3.2 @ 10.0.0.7:11434): boom"},
		{llm.Error{Provider: "openai", Endpoint: "10.0.0.7:11434", Message: "boom"}, "the model endpoint", "openai (the default model @ 10.0.0.7:11434): boom"},
		{llm.Error{Provider: "offline", Message: "boom"}, "offline", "offline: boom"},
	}
	for _, tt := range tests {
		if got := tt.err.Source(); got != tt.source {
			t.Errorf("Source() = %q, want %q", got, tt.source)
		}
		if got := tt.err.Error(); got != tt.errorText {
			t.Errorf("Error() = %q, want %q", got, tt.errorText)
		}
	}
}

// A picture counts toward the estimate as a model charges for one: a
// conversation of pictures is compacted and trimmed as its words would be.
func TestAPictureCountsTowardTheTokens(t *testing.T) {
	words := llm.Message{Role: llm.User, Content: "what is in these?"}
	pictures := words
	pictures.Images = []llm.Image{{Type: "image/png", File: "a"}, {Type: "image/jpeg", File: "b"}}
	if got, want := llm.EstimateTokens(pictures)-llm.EstimateTokens(words), 2*llm.ImageTokens; got != want {
		t.Errorf("two pictures add %d tokens, want %d", got, want)
	}
	call := llm.Message{Role: llm.Assistant, ToolCalls: []llm.ToolCall{{Name: "look", Arguments: `{"at":"north"}`}}}
	if got, want := llm.EstimateTokens(call), 4+(len("look")+len(`{"at":"north"}`)+3)/4; got != want {
		t.Errorf("a tool call estimates %d tokens, want %d", got, want)
	}
}
