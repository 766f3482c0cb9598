package middleware_test

import (
	"context"
	"strings"
	"testing"

	"github.com/sweatpants-go/sweatpants/middleware"
)

func TestCallWithoutProviderFailsClearly(t *testing.T) {
	api := middleware.NewAPI[int, int]("missing")
	_, err := api.Call(context.Background(), 1)
	if err == nil || !strings.Contains(err.Error(), "missing: no implementation") {
		t.Errorf("err = %v, want one naming the API", err)
	}
}

func TestValueOverride(t *testing.T) {
	type HTTPConfig struct{ Retries int }
	cfg := middleware.NewValue("http-config", HTTPConfig{Retries: 3})
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
