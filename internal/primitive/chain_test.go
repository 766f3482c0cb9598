package primitive_test

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/sweatpants-go/sweatpants/internal/primitive"
	"github.com/sweatpants-go/sweatpants/middleware"
)

// trace is a middleware that records its name on the way in and out.
func trace(name string, log *[]string) middleware.Middleware[string, string] {
	return func(next middleware.Handler[string, string]) middleware.Handler[string, string] {
		return func(ctx context.Context, req string) (string, error) {
			*log = append(*log, name+">")
			res, err := next(ctx, req+"|"+name)
			*log = append(*log, "<"+name)
			return res, err
		}
	}
}

func TestAroundOrderAcrossNestedScopes(t *testing.T) {
	api := middleware.NewAPI[string, string]("echo")
	var log []string
	outer := primitive.Provide(context.Background(), api, func(_ context.Context, req string) (string, error) {
		log = append(log, "core")
		return req, nil
	})
	// Install in an order unlike the expected one, so only the priority rules can produce it.
	outer = api.Around(outer, trace("outer-min", &log), middleware.Min)
	outer = api.Around(outer, trace("outer-max", &log), middleware.Max)
	inner := api.Around(outer, trace("inner-min", &log), middleware.Min)
	inner = api.Around(inner, trace("inner-max", &log), middleware.Max)

	got, err := api.Call(inner, "req")
	if err != nil {
		t.Fatal(err)
	}
	if want := "req|outer-max|inner-max|inner-min|outer-min"; got != want {
		t.Errorf("request seen by core = %q, want %q", got, want)
	}
	wantLog := []string{"outer-max>", "inner-max>", "inner-min>", "outer-min>", "core", "<outer-min", "<inner-min", "<inner-max", "<outer-max"}
	if !slices.Equal(log, wantLog) {
		t.Errorf("order = %v, want %v", log, wantLog)
	}

	t.Run("outer scope does not see inner middleware", func(t *testing.T) {
		log = nil
		got, _ := api.Call(outer, "req")
		if want := "req|outer-max|outer-min"; got != want {
			t.Errorf("got %q, want %q", got, want)
		}
	})
}

func TestAroundCanShortCircuitAndRetry(t *testing.T) {
	api := middleware.NewAPI[int, int]("double")
	calls := 0
	ctx := primitive.Provide(context.Background(), api, func(_ context.Context, n int) (int, error) {
		calls++
		if calls == 1 {
			return 0, errors.New("flaky")
		}
		return n * 2, nil
	})
	retry := func(next middleware.Handler[int, int]) middleware.Handler[int, int] {
		return func(ctx context.Context, n int) (int, error) {
			if res, err := next(ctx, n); err == nil {
				return res, nil
			}
			return next(ctx, n)
		}
	}
	got, err := api.Call(api.Around(ctx, retry, middleware.Min), 21)
	if err != nil || got != 42 || calls != 2 {
		t.Errorf("retry: got %d, %v after %d calls; want 42, nil after 2", got, err, calls)
	}

	cached := api.Around(ctx, func(middleware.Handler[int, int]) middleware.Handler[int, int] {
		return func(context.Context, int) (int, error) { return 7, nil }
	}, middleware.Max)
	calls = 0
	if got, _ := api.Call(cached, 1); got != 7 || calls != 0 {
		t.Errorf("short circuit: got %d after %d core calls; want 7 after 0", got, calls)
	}
}

func TestInnerProvideReplacesCore(t *testing.T) {
	api := middleware.NewAPI[string, string]("who")
	ctx := primitive.Provide(context.Background(), api, func(context.Context, string) (string, error) { return "outer", nil })
	ctx = api.Around(ctx, func(next middleware.Handler[string, string]) middleware.Handler[string, string] {
		return func(ctx context.Context, req string) (string, error) {
			res, err := next(ctx, req)
			return "[" + res + "]", err
		}
	}, middleware.Max)
	inner := primitive.Provide(ctx, api, func(context.Context, string) (string, error) { return "inner", nil })
	if got, _ := api.Call(inner, ""); got != "[inner]" {
		t.Errorf("got %q, want %q", got, "[inner]")
	}
}
