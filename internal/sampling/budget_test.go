package sampling_test

import (
	"context"
	"errors"
	"testing"

	"github.com/sweatpants-go/sweatpants/internal/sampling"
	"github.com/sweatpants-go/sweatpants/llm"
	"github.com/sweatpants-go/sweatpants/middleware"
	"github.com/sweatpants-go/sweatpants/turn"
)

// tokens is a reply that used n tokens.
func tokens(n int) llm.Response {
	return llm.Response{Content: "ok", Usage: llm.Usage{TotalTokens: n}}
}

func TestBudgetStopsARunawayLoop(t *testing.T) {
	m := &model{replies: []llm.Response{tokens(10)}}
	ctx := sampling.Budget(m.provide(t.Context()), sampling.Limits{Calls: 3})
	var err error
	made := 0
	for range 10 {
		if _, err = turn.Sample(ctx, asked("again")); err != nil {
			break
		}
		made++
	}
	be, ok := errors.AsType[*sampling.BudgetError](err)
	if !ok || made != 3 || m.calls() != 3 {
		t.Fatalf("after %d calls (%d reached the model): err = %v, want a BudgetError after 3", made, m.calls(), err)
	}
	if be.Calls != 3 || be.Tokens != 30 || be.Limits.Calls != 3 {
		t.Errorf("BudgetError = %+v", be)
	}
	if got, want := err.Error(), "This turn used its budget of 3 model calls; stopped so it does not run away."; got != want {
		t.Errorf("message %q, want %q", got, want)
	}
	if _, retry := errors.AsType[*middleware.RetryError](err); retry {
		t.Error("a spent budget came back as a retry; it must stop the pipeline")
	}
}

func TestBudgetCountsTokens(t *testing.T) {
	m := &model{replies: []llm.Response{tokens(400), tokens(700), tokens(5)}}
	ctx := sampling.Budget(m.provide(t.Context()), sampling.Limits{Tokens: 1000})
	for i := range 2 {
		if _, err := turn.Sample(ctx, asked("go")); err != nil {
			t.Fatalf("call %d: %v; the budget was not spent yet", i+1, err)
		}
	}
	_, err := turn.Sample(ctx, asked("go"))
	be, ok := errors.AsType[*sampling.BudgetError](err)
	if !ok || be.Tokens != 1100 || m.calls() != 2 {
		t.Fatalf("err = %v after %d calls, want a BudgetError at 1100 tokens after 2", err, m.calls())
	}
	if got, want := err.Error(), "This turn used its budget of 1000 tokens; stopped so it does not run away."; got != want {
		t.Errorf("message %q, want %q", got, want)
	}
}

// Each attempt of the pipeline is a model call and counts.
func TestBudgetCountsRefusedAttempts(t *testing.T) {
	m := replying("maybe")
	ctx := sampling.Budget(m.provide(t.Context()), sampling.Limits{Calls: 2})
	ctx = middleware.SampleOutput.Around(ctx, func(next middleware.Handler[middleware.Sampled, middleware.Sampled]) middleware.Handler[middleware.Sampled, middleware.Sampled] {
		return func(ctx context.Context, s middleware.Sampled) (middleware.Sampled, error) {
			return s, middleware.Retry("test", "never good enough")
		}
	}, middleware.Min)
	_, err := turn.Sample(middleware.SampleAttempts.With(ctx, 5), asked("go"))
	if _, ok := errors.AsType[*sampling.BudgetError](err); !ok || m.calls() != 2 {
		t.Fatalf("err = %v after %d calls, want a BudgetError after 2", err, m.calls())
	}
}

// Each call of Budget counts afresh: the next turn gets a whole budget.
func TestBudgetIsPerCall(t *testing.T) {
	m := replying("ok")
	root := m.provide(t.Context())
	scope := func(ctx context.Context) context.Context { return sampling.Budget(ctx, sampling.Limits{Calls: 1}) }
	for n := range 3 {
		ctx := scope(root)
		if _, err := turn.Sample(ctx, asked("hi")); err != nil {
			t.Fatalf("turn %d, first call: %v", n, err)
		}
		if _, err := turn.Sample(ctx, asked("hi")); err == nil {
			t.Fatalf("turn %d, second call: no error, want the budget spent", n)
		}
	}
}

// Concurrent calls share one budget and never go past it together.
func TestBudgetUnderTogether(t *testing.T) {
	m := &model{replies: []llm.Response{tokens(1)}}
	ctx := sampling.Budget(m.provide(t.Context()), sampling.Limits{Calls: 5})
	branches := make([]func(context.Context) error, 20)
	refused := make([]bool, len(branches))
	for i := range branches {
		branches[i] = func(ctx context.Context) error {
			_, err := turn.Sample(ctx, asked("go"))
			_, refused[i] = errors.AsType[*sampling.BudgetError](err)
			if err != nil && !refused[i] {
				return err
			}
			return nil
		}
	}
	if err := turn.Together(ctx, branches...); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, r := range refused {
		if r {
			n++
		}
	}
	if m.calls() != 5 || n != 15 {
		t.Fatalf("%d calls made and %d refused, want 5 and 15", m.calls(), n)
	}
}
