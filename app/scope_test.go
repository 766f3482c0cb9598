package app

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sweatpants-go/sweatpants/internal/primitive"
	"github.com/sweatpants-go/sweatpants/internal/sampling"
	"github.com/sweatpants-go/sweatpants/internal/store"
	"github.com/sweatpants-go/sweatpants/llm"
	"github.com/sweatpants-go/sweatpants/middleware"
	"github.com/sweatpants-go/sweatpants/turn"
)

func TestRootScope(t *testing.T) {
	env := func(kv ...string) func(string) string {
		return func(k string) string {
			for i := 0; i < len(kv); i += 2 {
				if kv[i] == k {
					return kv[i+1]
				}
			}
			return ""
		}
	}
	// threeCalls runs three model calls in a fresh turn of scope and returns what
	// the model was sent and the error of the last call.
	threeCalls := func(t *testing.T, scope func(context.Context) context.Context) ([]string, error) {
		var sent []string
		ctx := primitive.Provide(scope(t.Context()), middleware.Sample, func(_ context.Context, req llm.Request) (llm.Response, error) {
			sent = append(sent, req.Messages[0].Content)
			return llm.Response{Content: "ok"}, nil
		})
		var err error
		for range 3 {
			_, err = turn.Sample(ctx, llm.Request{Messages: []llm.Message{{Role: llm.User, Content: "mail ann@example.com"}}})
		}
		return sent, err
	}

	scope, err := rootScope(env(), nil, defaultContextTokens)
	if err != nil {
		t.Fatal(err)
	}
	if sent, err := threeCalls(t, scope); err != nil || !strings.Contains(sent[0], "[email]") {
		t.Fatalf("by default the model got %q (%v), want the address redacted", sent, err)
	}

	scope, err = rootScope(env("SWEATPANTS_REDACT_PII", "false", "SWEATPANTS_TURN_CALLS", "2"), nil, defaultContextTokens)
	if err != nil {
		t.Fatal(err)
	}
	sent, err := threeCalls(t, scope)
	if !strings.Contains(sent[0], "ann@example.com") {
		t.Fatalf("with redaction off the model got %q", sent[0])
	}
	if _, ok := errors.AsType[*sampling.BudgetError](err); !ok || len(sent) != 2 {
		t.Fatalf("with 2 calls a turn: %d calls made, last error %v; want the third refused", len(sent), err)
	}
	if sent, err := threeCalls(t, scope); err == nil || len(sent) != 2 {
		t.Fatalf("a second turn made %d calls (%v); want its own fresh budget of 2", len(sent), err)
	}

	for _, bad := range [][]string{{"SWEATPANTS_REDACT_PII", "maybe"}, {"SWEATPANTS_TURN_CALLS", "-1"}, {"SWEATPANTS_TURN_CALLS", "lots"}} {
		if _, err := rootScope(env(bad...), nil, defaultContextTokens); err == nil || !strings.Contains(err.Error(), bad[0]) {
			t.Errorf("%s=%s: err = %v, want one naming the variable", bad[0], bad[1], err)
		}
	}
}

// TestContextTokens: every turn's model calls are trimmed to the context's
// budget by default, the older messages left out and the latest kept;
// --context-tokens changes the budget, and 0 sends everything.
func TestContextTokens(t *testing.T) {
	// sent opens the program's turns as serve does with args and returns
	// what the model is sent of msgs.
	sent := func(t *testing.T, msgs []llm.Message, args ...string) []llm.Message {
		t.Helper()
		cfg, err := parseServe(args, func(string) string { return "" }, io.Discard)
		if err != nil {
			t.Fatal(err)
		}
		p := newProgram(testConfig(), func(string) string { return "" }, nil, io.Discard, io.Discard)
		o, err := p.open(t.Context(), "serve", filepath.Join(t.TempDir(), "x.db"), nil, cfg.contextTokens, store.Options{}, slog.New(slog.DiscardHandler))
		if err != nil {
			t.Fatal(err)
		}
		defer o.close()
		var got []llm.Message
		ctx := primitive.Provide(o.chat.Scope(t.Context()), middleware.Sample, func(_ context.Context, req llm.Request) (llm.Response, error) {
			got = req.Messages
			return llm.Response{Content: "ok"}, nil
		})
		if _, err := turn.Sample(ctx, llm.Request{Messages: msgs}); err != nil {
			t.Fatal(err)
		}
		return got
	}
	contents := func(msgs []llm.Message) []string {
		var out []string
		for _, m := range msgs {
			out = append(out, m.Content[:min(len(m.Content), 30)])
		}
		return out
	}

	long := []llm.Message{
		{Role: llm.User, Content: "old " + strings.Repeat("x", 4*defaultContextTokens)}, // over the default on its own
		{Role: llm.Assistant, Content: "noted"},
		{Role: llm.User, Content: "and now?"},
	}
	if got, want := contents(sent(t, long)), []string{"(1 earlier message omitted)", "noted", "and now?"}; !slices.Equal(got, want) {
		t.Errorf("by default the model got %q, want %q", got, want)
	}
	if got := sent(t, long, "--context-tokens", "0"); len(got) != len(long) {
		t.Errorf("with --context-tokens 0 the model got %q, want all of it", contents(got))
	}
	short := []llm.Message{{Role: llm.User, Content: "hello"}, {Role: llm.Assistant, Content: "hi"}, {Role: llm.User, Content: "bye"}}
	if got := sent(t, short); len(got) != len(short) {
		t.Errorf("a short conversation lost messages by default: the model got %q", contents(got))
	}
	if got, want := contents(sent(t, short, "--context-tokens", "10")), []string{"(2 earlier messages omitted)", "bye"}; !slices.Equal(got, want) {
		t.Errorf("with --context-tokens 10 the model got %q, want %q", got, want)
	}
}
