package app

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/sweatpants-go/sweatpants/llm"
	"github.com/sweatpants-go/sweatpants/llm/llmtest"
	"github.com/sweatpants-go/sweatpants/llm/openai"
)

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func TestModel(t *testing.T) {
	tests := []struct {
		name string
		env  map[string]string
		want string
	}{
		{"no key is offline", nil, "offline"},
		{"key is openai", map[string]string{"OPENAI_API_KEY": "sk-x"}, "openai"},
		{"forced offline", map[string]string{"OPENAI_API_KEY": "sk-x", "SWEATPANTS_PROVIDER": "offline"}, "offline"},
		{"forced openai without key", map[string]string{"SWEATPANTS_PROVIDER": "OpenAI", "OPENAI_BASE_URL": "http://localhost:11434/v1"}, "openai"},
		{"fallback model", map[string]string{"OPENAI_API_KEY": "sk-x", "SWEATPANTS_FALLBACK_MODEL": "gpt-small"}, "openai (fallback: openai)"},
		{"fallback endpoint", map[string]string{"OPENAI_API_KEY": "sk-x", "SWEATPANTS_FALLBACK_BASE_URL": "http://localhost:11434/v1"}, "openai (fallback: openai)"},
		{"fallback unused offline", map[string]string{"SWEATPANTS_FALLBACK_MODEL": "gpt-small"}, "offline"},
		{"knobs", map[string]string{"OPENAI_API_KEY": "sk-x", "SWEATPANTS_MODEL_TIMEOUT": "90s", "SWEATPANTS_MODEL_RETRIES": "0"}, "openai"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := model(env(tt.env))
			if err != nil {
				t.Fatalf("model: %v", err)
			}
			if got := p.Name(); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestModelBadValues(t *testing.T) {
	tests := []struct {
		name    string
		env     map[string]string
		wantErr string
	}{
		{"timeout not a duration", map[string]string{"SWEATPANTS_MODEL_TIMEOUT": "90"}, `SWEATPANTS_MODEL_TIMEOUT="90": want a positive duration`},
		{"timeout zero", map[string]string{"SWEATPANTS_MODEL_TIMEOUT": "0s"}, `SWEATPANTS_MODEL_TIMEOUT="0s"`},
		{"timeout negative", map[string]string{"SWEATPANTS_MODEL_TIMEOUT": "-1m"}, `SWEATPANTS_MODEL_TIMEOUT="-1m"`},
		{"retries not a number", map[string]string{"SWEATPANTS_MODEL_RETRIES": "three"}, `SWEATPANTS_MODEL_RETRIES="three": want a number from 0 to 10`},
		{"retries negative", map[string]string{"SWEATPANTS_MODEL_RETRIES": "-1"}, `SWEATPANTS_MODEL_RETRIES="-1"`},
		{"retries too many", map[string]string{"SWEATPANTS_MODEL_RETRIES": "100"}, `SWEATPANTS_MODEL_RETRIES="100"`},
		{"fallback URL without scheme", map[string]string{"OPENAI_API_KEY": "sk-x", "SWEATPANTS_FALLBACK_BASE_URL": "localhost:11434/v1"},
			`SWEATPANTS_FALLBACK_BASE_URL="localhost:11434/v1": want an http or https URL`},
		{"fallback URL not a URL", map[string]string{"SWEATPANTS_FALLBACK_BASE_URL": "http://%zz"}, `SWEATPANTS_FALLBACK_BASE_URL="http://%zz"`},
		{"fallback is the primary", map[string]string{"OPENAI_API_KEY": "sk-x", "SWEATPANTS_MODEL": "m", "SWEATPANTS_FALLBACK_MODEL": "m"},
			"the fallback (SWEATPANTS_FALLBACK_*) is the same model on the same endpoint as the primary"},
		{"fallback key is the primary's", map[string]string{"OPENAI_API_KEY": "sk-x", "SWEATPANTS_FALLBACK_API_KEY": "sk-x"}, "is the same model"},
		{"unknown provider", map[string]string{"SWEATPANTS_PROVIDER": "anthropic"}, `SWEATPANTS_PROVIDER="anthropic": want openai or offline`},
		{"checked even offline", map[string]string{"SWEATPANTS_PROVIDER": "offline", "SWEATPANTS_MODEL_RETRIES": "x"}, `SWEATPANTS_MODEL_RETRIES="x"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := model(env(tt.env))
			if err == nil {
				t.Fatalf("got provider %q, want an error", p.Name())
			}
			if !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("got error %q, want it to say %q", err, tt.wantErr)
			}
			if strings.Contains(err.Error(), "sk-x") {
				t.Errorf("error %q shows the API key", err)
			}
		})
	}
}

func TestModelConfig(t *testing.T) {
	got, err := modelConfig(env(map[string]string{"OPENAI_API_KEY": "sk-x", "SWEATPANTS_MODEL_TIMEOUT": "2m30s", "SWEATPANTS_MODEL_RETRIES": "5"}))
	if err != nil {
		t.Fatal(err)
	}
	want := openai.Config{APIKey: "sk-x", Model: defaultModel, Timeout: 150 * time.Second, MaxRetries: 5}
	if got != want {
		t.Errorf("got  %+v\nwant %+v", got, want)
	}
	got, err = modelConfig(env(map[string]string{"SWEATPANTS_MODEL_RETRIES": "0"}))
	if err != nil || got.MaxRetries >= 0 {
		t.Errorf("got retries %d, %v; want a negative number, which is none", got.MaxRetries, err)
	}
}

// TestFallbackOnTheWire: the fallback asks the model and endpoint it was
// given, and never sends the primary's key to another endpoint.
func TestFallbackOnTheWire(t *testing.T) {
	ask := func(t *testing.T, e map[string]string) string {
		t.Helper()
		p, err := model(env(e))
		if err != nil {
			t.Fatalf("model: %v", err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		resp, err := p.Complete(ctx, llm.Request{Messages: []llm.Message{{Role: llm.User, Content: "hi"}}}, nil)
		if err != nil {
			t.Fatalf("Complete: %v", err)
		}
		return resp.Content
	}
	t.Run("another model on the same endpoint", func(t *testing.T) {
		srv := llmtest.NewServer(t, llmtest.Fail(500, "down"), llmtest.Text("small answer"))
		got := ask(t, map[string]string{
			"OPENAI_API_KEY": "sk-primary", "OPENAI_BASE_URL": srv.URL, "SWEATPANTS_MODEL": "big",
			"SWEATPANTS_MODEL_RETRIES": "0", "SWEATPANTS_FALLBACK_MODEL": "small",
		})
		reqs := srv.Requests()
		if got != "small answer" || len(reqs) != 2 || reqs[0].Model != "big" || reqs[1].Model != "small" ||
			reqs[1].Header.Get("Authorization") != "Bearer sk-primary" {
			t.Fatalf("got %q after %d requests, want the small model's answer with the same key", got, len(reqs))
		}
	})
	for _, tt := range []struct{ name, key, wantAuth string }{
		{"another endpoint with its key", "sk-fallback", "Bearer sk-fallback"},
		{"another endpoint without a key", "", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			primary := llmtest.NewServer(t, llmtest.Fail(503, "down"))
			second := llmtest.NewServer(t, llmtest.Text("fallback answer"))
			got := ask(t, map[string]string{
				"OPENAI_API_KEY": "sk-primary", "OPENAI_BASE_URL": primary.URL, "SWEATPANTS_MODEL_RETRIES": "0",
				"SWEATPANTS_FALLBACK_BASE_URL": second.URL, "SWEATPANTS_FALLBACK_API_KEY": tt.key,
			})
			reqs := second.Requests()
			if got != "fallback answer" || len(reqs) != 1 || reqs[0].Model != defaultModel {
				t.Fatalf("got %q after %d requests, want the fallback's answer", got, len(reqs))
			}
			if auth := reqs[0].Header.Get("Authorization"); auth != tt.wantAuth && !(tt.wantAuth == "" && auth == "Bearer ") {
				t.Errorf("fallback endpoint got Authorization %q, want %q", auth, tt.wantAuth)
			}
		})
	}
}
