package main

import "testing"

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
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := model(func(k string) string { return tt.env[k] })
			if got := p.Name(); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}
