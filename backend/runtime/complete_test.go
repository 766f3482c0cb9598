package runtime_test

import (
	"context"
	"testing"

	"github.com/sweatpants-go/sweatpants/backend/llm"
	"github.com/sweatpants-go/sweatpants/backend/llm/offline"
	"github.com/sweatpants-go/sweatpants/backend/runtime"
)

// Complete calls the model it is given, through CompleteAPI's middleware
// when a scope installed some: the middleware sees the model, the request
// and the streamed text, and may change the reply.
func TestCompleteGoesThroughItsMiddleware(t *testing.T) {
	req := llm.Request{Messages: []llm.Message{{Role: llm.User, Content: "hello"}}}
	var streamed string
	onDelta := func(d string) { streamed += d }

	direct, err := runtime.Complete(context.Background(), offline.New(), req, onDelta)
	if err != nil || direct.Content == "" || streamed != direct.Content {
		t.Fatalf("with no middleware: %+v, %v, streamed %q", direct, err, streamed)
	}

	var seen []string
	ctx := runtime.CompleteAPI.Around(context.Background(), func(next runtime.Handler[runtime.Completion, llm.Response]) runtime.Handler[runtime.Completion, llm.Response] {
		return func(ctx context.Context, c runtime.Completion) (llm.Response, error) {
			seen = append(seen, c.Model.Name()+": "+c.Request.Messages[0].Content)
			resp, err := next(ctx, c)
			resp.Content = "[" + resp.Content + "]"
			return resp, err
		}
	}, runtime.Max)
	streamed = ""
	got, err := runtime.Complete(ctx, offline.New(), req, onDelta)
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
