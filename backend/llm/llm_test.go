package llm_test

import (
	"testing"

	"github.com/sweatpants-go/sweatpants/backend/llm"
)

func TestErrorString(t *testing.T) {
	err := &llm.Error{Provider: "openai", Status: 429, Retryable: true, Message: "rate limited (status 429): slow down"}
	if got, want := err.Error(), "openai: rate limited (status 429): slow down"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}
