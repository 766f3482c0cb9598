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
