package primitive_test

import (
	"context"
	"testing"

	"github.com/sweatpants-go/sweatpants/internal/offline"
	"github.com/sweatpants-go/sweatpants/internal/primitive"
	"github.com/sweatpants-go/sweatpants/llm"
	"github.com/sweatpants-go/sweatpants/middleware"
)

// Complete calls the model it is given, through CompleteAPI's middleware
// when a scope installed some: the middleware sees the model, the request
// and the streamed text, and may change the reply.
func TestCompleteGoesThroughItsMiddleware(t *testing.T) {
	req := llm.Request{Messages: []llm.Message{{Role: llm.User, Content: "hello"}}}
	var streamed string
	onDelta := func(d string) { streamed += d }

	direct, err := primitive.Complete(context.Background(), offline.New(), req, onDelta)
	if err != nil || direct.Content == "" || streamed != direct.Content {
		t.Fatalf("with no middleware: %+v, %v, streamed %q", direct, err, streamed)
	}

	var seen []string
	ctx := primitive.CompleteAPI.Around(context.Background(), func(next middleware.Handler[primitive.Completion, llm.Response]) middleware.Handler[primitive.Completion, llm.Response] {
		return func(ctx context.Context, c primitive.Completion) (llm.Response, error) {
			seen = append(seen, c.Model.Name()+": "+c.Request.Messages[0].Content)
			resp, err := next(ctx, c)
			resp.Content = "[" + resp.Content + "]"
			return resp, err
		}
	}, middleware.Max)
	streamed = ""
	got, err := primitive.Complete(ctx, offline.New(), req, onDelta)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"offline: hello"}; len(seen) != 1 || seen[0] != want[0] {
		t.Errorf("the middleware saw %q, want %q", seen, want)
	}
	if got.Content != "["+direct.Content+"]" || streamed != direct.Content {
		t.Errorf("got %q, streamed %q; want the model's reply %q through the middleware", got.Content, streamed, direct.Content)
	}
}
