package primitive

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
)

// trace is a middleware that records its name on the way in and out.
func trace(name string, log *[]string) Middleware[string, string] {
	return func(next Handler[string, string]) Handler[string, string] {
		return func(ctx context.Context, req string) (string, error) {
			*log = append(*log, name+">")
			res, err := next(ctx, req+"|"+name)
			*log = append(*log, "<"+name)
			return res, err
		}
	}
}

func TestAroundOrderAcrossNestedScopes(t *testing.T) {
	api := NewAPI[string, string]("echo")
	var log []string
	outer := api.Provide(context.Background(), func(_ context.Context, req string) (string, error) {
		log = append(log, "core")
		return req, nil
	})
	// Install in an order unlike the expected one, so only the priority rules can produce it.
	outer = api.Around(outer, trace("outer-min", &log), Min)
	outer = api.Around(outer, trace("outer-max", &log), Max)
	inner := api.Around(outer, trace("inner-min", &log), Min)
	inner = api.Around(inner, trace("inner-max", &log), Max)

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
	api := NewAPI[int, int]("double")
	calls := 0
	ctx := api.Provide(context.Background(), func(_ context.Context, n int) (int, error) {
		calls++
		if calls == 1 {
			return 0, errors.New("flaky")
		}
		return n * 2, nil
	})
	retry := func(next Handler[int, int]) Handler[int, int] {
		return func(ctx context.Context, n int) (int, error) {
			if res, err := next(ctx, n); err == nil {
				return res, nil
			}
			return next(ctx, n)
		}
	}
	got, err := api.Call(api.Around(ctx, retry, Min), 21)
	if err != nil || got != 42 || calls != 2 {
		t.Errorf("retry: got %d, %v after %d calls; want 42, nil after 2", got, err, calls)
	}

	cached := api.Around(ctx, func(Handler[int, int]) Handler[int, int] {
		return func(context.Context, int) (int, error) { return 7, nil }
	}, Max)
	calls = 0
	if got, _ := api.Call(cached, 1); got != 7 || calls != 0 {
		t.Errorf("short circuit: got %d after %d core calls; want 7 after 0", got, calls)
	}
}

func TestCallWithoutProviderFailsClearly(t *testing.T) {
	api := NewAPI[int, int]("missing")
	_, err := api.Call(context.Background(), 1)
	if err == nil || !strings.Contains(err.Error(), "missing: no implementation") {
		t.Errorf("err = %v, want one naming the API", err)
	}
}

func TestInnerProvideReplacesCore(t *testing.T) {
	api := NewAPI[string, string]("who")
	ctx := api.Provide(context.Background(), func(context.Context, string) (string, error) { return "outer", nil })
	ctx = api.Around(ctx, func(next Handler[string, string]) Handler[string, string] {
		return func(ctx context.Context, req string) (string, error) {
			res, err := next(ctx, req)
			return "[" + res + "]", err
		}
	}, Max)
	inner := api.Provide(ctx, func(context.Context, string) (string, error) { return "inner", nil })
	if got, _ := api.Call(inner, ""); got != "[inner]" {
		t.Errorf("got %q, want %q", got, "[inner]")
	}
}

func TestValueOverride(t *testing.T) {
	type HTTPConfig struct{ Retries int }
	cfg := NewValue("http-config", HTTPConfig{Retries: 3})
	root := context.Background()
	child := cfg.With(root, HTTPConfig{Retries: 10})
	grandchild, cancel := context.WithCancel(child)
	defer cancel()
	for _, tc := range []struct {
		name string
		ctx  context.Context
		want int
	}{{"default", root, 3}, {"override", child, 10}, {"inherited", grandchild, 10}} {
		t.Run(tc.name, func(t *testing.T) {
			if got := cfg.Get(tc.ctx).Retries; got != tc.want {
				t.Errorf("got %d, want %d", got, tc.want)
			}
		})
	}
}
