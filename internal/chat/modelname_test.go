package chat_test

import (
	"strings"
	"testing"

	"github.com/sweatpants-go/sweatpants/internal/offline"
	"github.com/sweatpants-go/sweatpants/llm"
	"github.com/sweatpants-go/sweatpants/llm/fallback"
	"github.com/sweatpants-go/sweatpants/llm/openai"
)

// The chat's pages name the model, never the host and port it is served
// from: those are for the developers' debug page.
func TestModelNameLeavesOutTheEndpoint(t *testing.T) {
	const endpoint = "10.1.2.3:8080"
	served := func(model string) llm.Provider {
		return openai.New(openai.Config{APIKey: "k", BaseURL: "http://" + endpoint + "/v1", Model: model})
	}
	for _, tc := range []struct {
		name  string
		model llm.Provider
		want  string
	}{
		{"a model", served("gpt-test"), "gpt-test"},
		{"the endpoint's default model", served(""), "openai"},
		{"offline", offline.New(), "offline"},
		{"with a fallback", fallback.New(served("gpt-test"), served("gpt-small")), "openai (fallback: openai)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			svc, _ := newService(t, tc.model)
			if got := svc.ModelName(); got != tc.want {
				t.Errorf("ModelName() = %q, want %q", got, tc.want)
			}
			if strings.Contains(svc.ModelName(), endpoint) {
				t.Errorf("ModelName() = %q names the endpoint", svc.ModelName())
			}
		})
	}
}
