package telemetry_test

import (
	"context"
	"testing"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/sweatpants-go/sweatpants/internal/offline"
	"github.com/sweatpants-go/sweatpants/internal/primitive"
	"github.com/sweatpants-go/sweatpants/internal/telemetry"
	"github.com/sweatpants-go/sweatpants/llm"
	"github.com/sweatpants-go/sweatpants/middleware"
	"github.com/sweatpants-go/sweatpants/turn"
)

// BenchmarkModelCall measures what telemetry adds to a model call through
// the sample pipeline (as primitive's BenchmarkSamplePipeline makes it, with
// the core calling the model through primitive.Complete, as a turn's does):
// none installed; metrics alone, as when no collector is configured; and
// metrics with spans made by the SDK (sent nowhere).
func BenchmarkModelCall(b *testing.B) {
	model := offline.New()
	req := llm.Request{Messages: []llm.Message{{Role: llm.User, Content: "What is the weather in Oslo?"}}}
	core := func(ctx context.Context, req llm.Request) (llm.Response, error) {
		return primitive.Complete(ctx, model, req, nil)
	}
	for _, bc := range []struct {
		name  string
		scope func(context.Context) context.Context
	}{
		{"none", func(ctx context.Context) context.Context { return ctx }},
		{"metrics", telemetry.New(nil).Scope},
		{"traced", telemetry.New(sdktrace.NewTracerProvider()).Scope},
	} {
		b.Run(bc.name, func(b *testing.B) {
			ctx := primitive.Provide(bc.scope(context.Background()), middleware.Sample, core)
			b.ReportAllocs()
			for b.Loop() {
				if _, err := turn.Sample(ctx, req); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
