package turn_test

import (
	"context"
	"testing"

	"github.com/sweatpants-go/sweatpants/internal/offline"
	"github.com/sweatpants-go/sweatpants/internal/primitive"
	"github.com/sweatpants-go/sweatpants/llm"
	"github.com/sweatpants-go/sweatpants/middleware"
	"github.com/sweatpants-go/sweatpants/turn"
)

// BenchmarkSamplePipeline measures what the pipeline adds to a model call
// with no middleware installed: the offline model called directly, and
// through Sample. The difference is the pipeline's own cost (the target:
// at most 5 µs and 2 allocations more per call).
func BenchmarkSamplePipeline(b *testing.B) {
	model := offline.New()
	req := llm.Request{Messages: []llm.Message{{Role: llm.User, Content: "What is the weather in Oslo?"}}}
	b.Run("direct", func(b *testing.B) {
		ctx := context.Background()
		b.ReportAllocs()
		for b.Loop() {
			if _, err := model.Complete(ctx, req, nil); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("pipeline", func(b *testing.B) {
		ctx := primitive.Provide(context.Background(), middleware.Sample, func(ctx context.Context, req llm.Request) (llm.Response, error) {
			return model.Complete(ctx, req, nil)
		})
		b.ReportAllocs()
		for b.Loop() {
			if _, err := turn.Sample(ctx, req); err != nil {
				b.Fatal(err)
			}
		}
	})
}
