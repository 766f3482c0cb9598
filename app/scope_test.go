package app

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/sweatpants-go/sweatpants/backend/llm"
	"github.com/sweatpants-go/sweatpants/backend/primitive"
	"github.com/sweatpants-go/sweatpants/backend/sampling"
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
	// turn runs three model calls in a fresh turn of scope and returns what
	// the model was sent and the error of the last call.
	turn := func(t *testing.T, scope func(context.Context) context.Context) ([]string, error) {
		var sent []string
		ctx := primitive.SampleAPI.Provide(scope(t.Context()), func(_ context.Context, req llm.Request) (llm.Response, error) {
			sent = append(sent, req.Messages[0].Content)
			return llm.Response{Content: "ok"}, nil
		})
		var err error
		for range 3 {
			_, err = primitive.Sample(ctx, llm.Request{Messages: []llm.Message{{Role: llm.User, Content: "mail ann@example.com"}}})
		}
		return sent, err
	}

	scope, err := rootScope(env(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if sent, err := turn(t, scope); err != nil || !strings.Contains(sent[0], "[email]") {
		t.Fatalf("by default the model got %q (%v), want the address redacted", sent, err)
	}

	scope, err = rootScope(env("SWEATPANTS_REDACT_PII", "false", "SWEATPANTS_TURN_CALLS", "2"), nil)
	if err != nil {
		t.Fatal(err)
	}
	sent, err := turn(t, scope)
	if !strings.Contains(sent[0], "ann@example.com") {
		t.Fatalf("with redaction off the model got %q", sent[0])
	}
	if _, ok := errors.AsType[*sampling.BudgetError](err); !ok || len(sent) != 2 {
		t.Fatalf("with 2 calls a turn: %d calls made, last error %v; want the third refused", len(sent), err)
	}
	if sent, err := turn(t, scope); err == nil || len(sent) != 2 {
		t.Fatalf("a second turn made %d calls (%v); want its own fresh budget of 2", len(sent), err)
	}

	for _, bad := range [][]string{{"SWEATPANTS_REDACT_PII", "maybe"}, {"SWEATPANTS_TURN_CALLS", "-1"}, {"SWEATPANTS_TURN_CALLS", "lots"}} {
		if _, err := rootScope(env(bad...), nil); err == nil || !strings.Contains(err.Error(), bad[0]) {
			t.Errorf("%s=%s: err = %v, want one naming the variable", bad[0], bad[1], err)
		}
	}
}
