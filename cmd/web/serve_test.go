package main

import (
	"io"
	"strings"
	"testing"
	"time"

	"github.com/sweatpants-go/sweatpants/backend/chat"
)

func TestParseServeSuspendAfter(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		env     map[string]string
		want    time.Duration
		wantErr string
	}{
		{"default", nil, nil, chat.DefaultSuspendAfter, ""},
		{"flag", []string{"--suspend-after", "0"}, nil, 0, ""},
		{"environment", nil, map[string]string{"SWEATPANTS_SUSPEND_AFTER": "30s"}, 30 * time.Second, ""},
		{"flag over environment", []string{"--suspend-after", "-1s"}, map[string]string{"SWEATPANTS_SUSPEND_AFTER": "30s"}, -time.Second, ""},
		{"not a duration", nil, map[string]string{"SWEATPANTS_SUSPEND_AFTER": "soon"}, 0, "SWEATPANTS_SUSPEND_AFTER must be a duration"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, err := parseServe(tt.args, func(k string) string { return tt.env[k] }, io.Discard)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("got error %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if cfg.suspend != tt.want {
				t.Errorf("suspend after %v, want %v", cfg.suspend, tt.want)
			}
		})
	}
}
