package primitive

import (
	"context"

	"github.com/sweatpants-go/sweatpants/llm"
	"github.com/sweatpants-go/sweatpants/middleware"
)

// Completion is one call of a model provider, as the core of middleware.Sample
// makes it when the call is not answered from a record.
type Completion struct {
	Model   llm.Provider
	Request llm.Request
	// OnDelta, when non-nil, hears the reply's text as it streams.
	OnDelta func(delta string)
}

// CompleteAPI is the provider call itself, beneath middleware.Sample's core.
// middleware.Sample's middleware sees every model call of a turn, those a resumed
// turn finds in its record included; CompleteAPI's sees only the calls a
// provider answers in this process, which is what telemetry counts (token
// usage, latency, one span per call). With no core provided, a call goes
// to the Completion's model.
var CompleteAPI = middleware.NewAPI[Completion, llm.Response]("complete")

// Complete asks model to answer req through CompleteAPI's middleware.
// With none installed it costs one context lookup more than calling the
// model directly.
func Complete(ctx context.Context, model llm.Provider, req llm.Request, onDelta func(string)) (llm.Response, error) {
	if !Installed(ctx, CompleteAPI) {
		return model.Complete(ctx, req, onDelta)
	}
	return Chain(ctx, CompleteAPI, complete)(ctx, Completion{Model: model, Request: req, OnDelta: onDelta})
}

func complete(ctx context.Context, c Completion) (llm.Response, error) {
	return c.Model.Complete(ctx, c.Request, c.OnDelta)
}
