package app

import (
	"flag"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/netip"
	"net/url"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/sweatpants-go/sweatpants/internal/chat"
	"github.com/sweatpants-go/sweatpants/internal/files"
	"github.com/sweatpants-go/sweatpants/internal/openid"
	"github.com/sweatpants-go/sweatpants/internal/transport"
	"github.com/sweatpants-go/sweatpants/policy"
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
		{"not a duration", nil, map[string]string{"SWEATPANTS_SUSPEND_AFTER": "soon"}, 0, `invalid value "soon" for SWEATPANTS_SUSPEND_AFTER: want a duration`},
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

func TestParseServeGCRetention(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		env     map[string]string
		want    time.Duration
		wantErr string
	}{
		{"default", nil, nil, 720 * time.Hour, ""},
		{"flag", []string{"--gc-retention", "24h"}, nil, 24 * time.Hour, ""},
		{"at once", []string{"--gc-retention", "0"}, nil, 0, ""},
		{"environment", nil, map[string]string{"SWEATPANTS_GC_RETENTION": "48h"}, 48 * time.Hour, ""},
		{"flag over environment", []string{"--gc-retention", "1h"}, map[string]string{"SWEATPANTS_GC_RETENTION": "48h"}, time.Hour, ""},
		{"negative", []string{"--gc-retention", "-1h"}, nil, 0, `invalid value "-1h" for flag -gc-retention: want a duration such as 720h, 24h or 0`},
		{"not a duration", nil, map[string]string{"SWEATPANTS_GC_RETENTION": "a month"}, 0, `invalid value "a month" for SWEATPANTS_GC_RETENTION`},
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
			if cfg.retention != tt.want {
				t.Errorf("gc retention %v, want %v", cfg.retention, tt.want)
			}
		})
	}
}

// TestServeGCRetentionReachesGC: the retention serve is given is the one
// gc keeps by, as the tree inspector says beside its gc button.
func TestServeGCRetentionReachesGC(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"default", nil, "once older than 30 days"},
		{"flag", []string{"--gc-retention", "12h"}, "once older than 12 hours"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			addr := startServer(t, tc.args...)
			jar, err := cookiejar.New(nil)
			if err != nil {
				t.Fatal(err)
			}
			client := &http.Client{Jar: jar}
			res, err := client.PostForm("http://"+addr+"/c", url.Values{"agent": {""}})
			if err != nil {
				t.Fatal(err)
			}
			res.Body.Close()
			if res.StatusCode != http.StatusOK {
				t.Fatalf("starting a conversation: %s", res.Status)
			}
			res, err = client.Get(res.Request.URL.String() + "/tree")
			if err != nil {
				t.Fatal(err)
			}
			defer res.Body.Close()
			page, err := io.ReadAll(res.Body)
			if err != nil {
				t.Fatal(err)
			}
			if res.StatusCode != http.StatusOK || !strings.Contains(string(page), tc.want) {
				t.Errorf("the inspector (%s) does not say %q", res.Status, tc.want)
			}
		})
	}
}

// TestParseServeEveryFlagHasItsVariable: each flag of serve, set only by
// its environment variable, takes the variable's value.
func TestParseServeEveryFlagHasItsVariable(t *testing.T) {
	rules := writeFile(t, "policy.rules", "deny */delete*\n")
	servers := writeFile(t, "servers.json", `{"mcpServers": {"search": {"url": "https://search.example/mcp"}}}`)
	env := map[string]string{
		"SWEATPANTS_ADDR": "127.0.0.1:9090", "SWEATPANTS_DB": "x.db", "SWEATPANTS_NODE_URL": "http://10.0.0.5:9090", "SWEATPANTS_DURABILITY": "power-loss",
		"SWEATPANTS_LOG": "json", "SWEATPANTS_MAX_BODY": "1024", "SWEATPANTS_MAX_REPLY": "65536",
		"SWEATPANTS_COMPACT_TOKENS": "0", "SWEATPANTS_CONTEXT_TOKENS": "8000", "SWEATPANTS_SUSPEND_AFTER": "5s", "SWEATPANTS_GC_RETENTION": "12h",
		"SWEATPANTS_APPROVAL_EXPIRY": "7m",
		"SWEATPANTS_ALLOWED_HOSTS":   "chat.example, app.example", "SWEATPANTS_TRUSTED_PROXIES": "10.0.0.0/8",
		"SWEATPANTS_SECURE_COOKIES": "true", "SWEATPANTS_READ_TIMEOUT": "3s", "SWEATPANTS_IDLE_TIMEOUT": "4s",
		"SWEATPANTS_MAX_CONNS": "7", "SWEATPANTS_MAX_STREAMS": "5", "SWEATPANTS_MAX_STREAMS_PER_CLIENT": "3",
		"SWEATPANTS_OTLP_ENDPOINT": "http://collector:4318", "SWEATPANTS_DATASTAR": "vendor/datastar.js",
		"SWEATPANTS_POLICY": rules, "SWEATPANTS_MCP_TOKEN": "t0ken", "SWEATPANTS_MCP_IDLE": "10m", "SWEATPANTS_MCP_SERVERS": servers,
		"SWEATPANTS_MAX_FILE_SIZE": "1000", "SWEATPANTS_MAX_MESSAGE_FILES_SIZE": "3000", "SWEATPANTS_FILE_TYPES": "image/png, text/*",
		"SWEATPANTS_MAX_SESSION_FILES_SIZE": "5000", "SWEATPANTS_MAX_FILES_SIZE": "9000", "SWEATPANTS_DISK_RESERVE": "7000",
		"SWEATPANTS_MAX_UPLOADS_PER_SESSION": "2", "SWEATPANTS_MAX_UPLOADS_PER_CLIENT": "6", "SWEATPANTS_MAX_UPLOADS": "11",
		"SWEATPANTS_UPLOAD_STALL": "9s",
		"SWEATPANTS_OIDC_ISSUER":  "https://id.example", "SWEATPANTS_OIDC_CLIENT_ID": "chat", "SWEATPANTS_OIDC_CLIENT_SECRET": "s3cret",
		"SWEATPANTS_OIDC_REDIRECT_URL": "https://chat.example/signin/callback", "SWEATPANTS_OIDC_ALLOWED_DOMAINS": "example.com, example.org",
		"SWEATPANTS_OIDC_ALLOWED_GROUPS": "staff", "SWEATPANTS_TRUSTED_HEADER_SIGNIN": "true", "SWEATPANTS_OPEN_WITHOUT_SIGNIN": "true",
		"SWEATPANTS_OPERATORS": "op@example.com", "SWEATPANTS_OPERATOR_GROUPS": "ops",
	}
	var flags serveConfig
	n := 0
	newProgram(testConfig(), nil, nil, io.Discard, io.Discard).serveFlags(&flags).VisitAll(func(f *flag.Flag) {
		n++
		if _, ok := env[envName(f.Name)]; !ok {
			t.Errorf("--%s: its variable %s is not in this test", f.Name, envName(f.Name))
		}
	})
	if n != len(env) {
		t.Errorf("serve has %d flags, the test sets %d variables", n, len(env))
	}
	got, err := parseServe(nil, func(k string) string { return env[k] }, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	want := serveConfig{addr: "127.0.0.1:9090", db: "x.db", nodeURL: "http://10.0.0.5:9090", durability: "power-loss", logFormat: "json", maxBody: 1024,
		maxReply: 65536, compact: 0, contextTokens: 8000, suspend: 5 * time.Second, retention: 12 * time.Hour, approvalExpiry: 7 * time.Minute, allowedHosts: []string{"chat.example", "app.example"},
		trustedProxies: []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")}, secureCookies: true,
		readTimeout: 3 * time.Second, idleTimeout: 4 * time.Second, maxConns: 7, maxStreams: 5, clientStreams: 3, datastar: "vendor/datastar.js",
		policy: ruleFile{path: rules, rules: []policy.Rule{{Action: policy.Deny, Tool: "*/delete*", Source: "policy.rules:1"}}},
		files: files.Limits{MaxFile: 1000, MaxMessage: 3000, Types: []string{"image/png", "text/*"},
			MaxSession: 5000, MaxTotal: 9000, Reserve: 7000},
		uploads: transport.UploadLimits{PerSession: 2, PerClient: 6, Total: 11, Stall: 9 * time.Second},
		signin: signinConfig{oidc: openid.Config{Issuer: "https://id.example", ClientID: "chat", ClientSecret: "s3cret",
			RedirectURL: "https://chat.example/signin/callback", Rules: openid.Rules{Domains: []string{"example.com", "example.org"}, Groups: []string{"staff"}}},
			trustedHeader: true, operators: transport.Operators{Emails: []string{"op@example.com"}, Groups: []string{"ops"}}, open: true}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got  %+v\nwant %+v", got, want)
	}
}

// TestParseServeRefusals: a bad value is refused, naming the flag or the
// variable it came from and the value; so is an argument that is no flag.
func TestParseServeRefusals(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		env     map[string]string
		wantErr string
	}{
		{"an unknown log format", []string{"--log", "yaml"}, nil, `invalid value "yaml" for flag -log: want text or json`},
		{"an unknown log format in the environment", nil, map[string]string{"SWEATPANTS_LOG": "yaml"}, `invalid value "yaml" for SWEATPANTS_LOG: want text or json`},
		{"an unknown durability", []string{"--durability", "fsync"}, nil, `invalid value "fsync" for flag -durability: want process-crash or power-loss`},
		{"an unknown durability in the environment", nil, map[string]string{"SWEATPANTS_DURABILITY": "full"}, `invalid value "full" for SWEATPANTS_DURABILITY`},
		{"a duration without a unit", []string{"--read-timeout", "30"}, nil, `invalid value "30" for flag -read-timeout: want a positive duration`},
		{"a zero timeout", []string{"--idle-timeout", "0s"}, nil, `invalid value "0s" for flag -idle-timeout`},
		{"a body size in words", []string{"--max-body", "64k"}, nil, `invalid value "64k" for flag -max-body: want a positive number of bytes`},
		{"no body at all", nil, map[string]string{"SWEATPANTS_MAX_BODY": "0"}, `invalid value "0" for SWEATPANTS_MAX_BODY`},
		{"a reply bound too small for its note", []string{"--max-reply", "100"}, nil, `invalid value "100" for flag -max-reply: want a number of bytes, at least 1024`},
		{"negative tokens", []string{"--compact-tokens", "-5"}, nil, `invalid value "-5" for flag -compact-tokens`},
		{"tokens in the environment that are no number", nil, map[string]string{"SWEATPANTS_COMPACT_TOKENS": "lots"}, `invalid value "lots" for SWEATPANTS_COMPACT_TOKENS`},
		{"a negative context", []string{"--context-tokens", "-1"}, nil, `invalid value "-1" for flag -context-tokens`},
		{"no connections", []string{"--max-conns", "0"}, nil, `invalid value "0" for flag -max-conns`},
		{"a file size in words", []string{"--max-file-size", "10MB"}, nil, `invalid value "10MB" for flag -max-file-size: want a positive number of bytes`},
		{"no room for a message's files", nil, map[string]string{"SWEATPANTS_MAX_MESSAGE_FILES_SIZE": "0"}, `invalid value "0" for SWEATPANTS_MAX_MESSAGE_FILES_SIZE`},
		{"a disk reserve in words", []string{"--disk-reserve", "1GB"}, nil, `invalid value "1GB" for flag -disk-reserve: want a positive number of bytes`},
		{"no uploads at once", nil, map[string]string{"SWEATPANTS_MAX_UPLOADS_PER_CLIENT": "0"}, `invalid value "0" for SWEATPANTS_MAX_UPLOADS_PER_CLIENT`},
		{"an upload stall without a unit", []string{"--upload-stall", "30"}, nil, `invalid value "30" for flag -upload-stall: want a positive duration`},
		{"a file type that is an extension", []string{"--file-types", "png,jpg"}, nil, `invalid value "png,jpg" for flag -file-types: "png" is not a content type`},
		{"a cookie flag that is no boolean", nil, map[string]string{"SWEATPANTS_SECURE_COOKIES": "maybe"}, `invalid value "maybe" for SWEATPANTS_SECURE_COOKIES: want true or false`},
		{"a proxy that is no address", []string{"--trusted-proxies", "proxy.local"}, nil, `invalid value "proxy.local" for flag -trusted-proxies: trusted proxy "proxy.local" is not an IP address`},
		{"a collector that is no URL", []string{"--otlp-endpoint", "localhost:4318"}, nil, `invalid value "localhost:4318" for flag -otlp-endpoint: want an http or https URL`},
		{"an empty address", []string{"--addr", ""}, nil, `invalid value "" for flag -addr: must not be empty`},
		{"an argument before the flags", []string{"extra", "--addr", "127.0.0.1:9090"}, nil, `serve takes no arguments, only flags: "extra" is not a flag`},
		{"an argument after the flags", []string{"--addr", "127.0.0.1:9090", "extra"}, nil, `"extra" is not a flag`},
		{"an unknown flag", []string{"--port", "80"}, nil, "flag provided but not defined: -port"},
		{"a flag without its value", []string{"--db"}, nil, "flag needs an argument: -db"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := parseServe(tt.args, func(k string) string { return tt.env[k] }, io.Discard)
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("got error %v, want %q", err, tt.wantErr)
			}
			if _, ok := err.(*usageError); !ok {
				t.Errorf("%v is not a usage error (exit 2)", err)
			}
		})
	}
}

func TestParseServeApprovalExpiry(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		env     map[string]string
		want    time.Duration
		wantErr string
	}{
		{"default: for ever", nil, nil, 0, ""},
		{"flag", []string{"--approval-expiry", "10m"}, nil, 10 * time.Minute, ""},
		{"environment", nil, map[string]string{"SWEATPANTS_APPROVAL_EXPIRY": "90s"}, 90 * time.Second, ""},
		{"flag over environment", []string{"--approval-expiry", "0"}, map[string]string{"SWEATPANTS_APPROVAL_EXPIRY": "90s"}, 0, ""},
		{"negative", []string{"--approval-expiry", "-1m"}, nil, 0, `invalid value "-1m" for flag -approval-expiry: want a duration such as 10m, 90s or 0`},
		{"not a duration", nil, map[string]string{"SWEATPANTS_APPROVAL_EXPIRY": "soon"}, 0, `invalid value "soon" for SWEATPANTS_APPROVAL_EXPIRY`},
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
			if cfg.approvalExpiry != tt.want {
				t.Errorf("approval expiry %v, want %v", cfg.approvalExpiry, tt.want)
			}
		})
	}
}
