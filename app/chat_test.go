package app

import (
	"io"
	"reflect"
	"strings"
	"testing"

	"github.com/sweatpants-go/sweatpants/internal/chat"
)

func TestParseChat(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		env     map[string]string
		want    chatConfig
		wantErr string
	}{
		{"defaults", nil, nil, chatConfig{db: "data/terminal.db", session: "terminal", maxReply: chat.DefaultMaxReply, contextTokens: defaultContextTokens}, ""},
		{"all flags", []string{"--db", "x.db", "--agent", "echo", "--conversation", "abc", "--session", "me", "--max-reply", "4096", "--context-tokens", "5000"}, nil,
			chatConfig{db: "x.db", agent: "echo", conversation: "abc", session: "me", maxReply: 4096, contextTokens: 5000}, ""},
		{"all from the environment", nil, map[string]string{"SWEATPANTS_DB": "y.db", "SWEATPANTS_AGENT": "greeter",
			"SWEATPANTS_CONVERSATION": "c1", "SWEATPANTS_SESSION": "s1", "SWEATPANTS_MAX_REPLY": "2048", "SWEATPANTS_CONTEXT_TOKENS": "2000"},
			chatConfig{db: "y.db", agent: "greeter", conversation: "c1", session: "s1", maxReply: 2048, contextTokens: 2000}, ""},
		{"a flag over its variable", []string{"--agent", "echo"}, map[string]string{"SWEATPANTS_AGENT": "greeter"},
			chatConfig{db: "data/terminal.db", agent: "echo", session: "terminal", maxReply: chat.DefaultMaxReply, contextTokens: defaultContextTokens}, ""},
		{"an argument", []string{"hello"}, nil, chatConfig{}, `chat takes no arguments, only flags: "hello" is not a flag`},
		{"an argument before a flag", []string{"hello", "--db", "x.db"}, nil, chatConfig{}, `"hello" is not a flag`},
		{"an empty session", []string{"--session", ""}, nil, chatConfig{}, `invalid value "" for flag -session: must not be empty`},
		{"an unknown flag", []string{"--addr", ":80"}, nil, chatConfig{}, "flag provided but not defined: -addr"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseChat(tt.args, func(k string) string { return tt.env[k] }, io.Discard)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("got error %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}
