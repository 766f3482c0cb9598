package openai_test

import (
	"testing"

	"github.com/sweatpants-go/sweatpants/internal/offline"
	"github.com/sweatpants-go/sweatpants/llm"
	"github.com/sweatpants-go/sweatpants/llm/fallback"
	"github.com/sweatpants-go/sweatpants/llm/openai"
)

// The pages name the model and the endpoint's host, never its path or a key.
func TestALabelNamesTheModelAndTheHost(t *testing.T) {
	tests := []struct {
		cfg  openai.Config
		want string
	}{
		{openai.Config{APIKey: "sk-secret", BaseURL: "http://localhost:11434/v1", Model: "llama3.2"}, "llama3.2 @ localhost:11434"},
		{openai.Config{APIKey: "sk-secret", Model: "gpt-4o-mini"}, "gpt-4o-mini @ api.openai.com"},
		{openai.Config{APIKey: "sk-secret", BaseURL: "https://user:pw@example.com/v1"}, "the default model @ example.com"},
	}
	for _, tt := range tests {
		if got := llm.Label(openai.New(tt.cfg)); got != tt.want {
			t.Errorf("Label = %q, want %q", got, tt.want)
		}
	}
	if got := llm.Label(offline.New()); got != "offline" {
		t.Errorf("the offline model's label = %q", got)
	}
	both := fallback.New(openai.New(openai.Config{APIKey: "k", Model: "a"}), offline.New())
	if got, want := llm.Label(both), "a @ api.openai.com (fallback: offline)"; got != want {
		t.Errorf("fallback label = %q, want %q", got, want)
	}
}
