package turn

import (
	"context"
	"errors"
	"fmt"

	"github.com/sweatpants-go/sweatpants/internal/primitive"
	"github.com/sweatpants-go/sweatpants/llm"
	"github.com/sweatpants-go/sweatpants/middleware"
)

// The sample pipeline runs the stages package middleware declares around
// the model call, again from the input stage for each attempt a stage
// refuses. A stage with no middleware costs one context lookup; the
// pipeline adds no allocation to a call whose stages are all empty.

// RefusedError is a model call whose every attempt was refused by a stage
// of the pipeline (middleware.Retry).
type RefusedError struct {
	Attempts int
	Last     *middleware.RetryError
}

func (e *RefusedError) Error() string {
	return fmt.Sprintf("the model's answer was refused %d times; last: %s", e.Attempts, e.Last.Error())
}

func (e *RefusedError) Unwrap() error { return e.Last }

// Sample calls the model with req through the sample pipeline (redaction,
// repair, budget and whatever else the program installed) and returns its
// reply. In a turn the call is recorded: a replay answers it from the record
// and does not call the model again.
func Sample(ctx context.Context, req llm.Request) (llm.Response, error) {
	s, err := SampleFull(ctx, req)
	return s.Response, err
}

// SampleFull is Sample, returning what the pipeline's stages made of the
// reply besides (its value, metadata and confidence).
func SampleFull(ctx context.Context, req llm.Request) (middleware.Sampled, error) {
	limit := max(middleware.SampleAttempts.Get(ctx), 1)
	var refused *middleware.RetryError
	for attempt := 1; ; attempt++ {
		s, err := sampleOnce(ctx, middleware.Prompt{Request: req, Attempt: attempt, Refused: refused})
		re, ok := errors.AsType[*middleware.RetryError](err)
		if !ok {
			return s, err
		}
		if primitive.Installed(ctx, primitive.SampleRetryAPI) {
			if _, err := primitive.SampleRetryAPI.Call(ctx, primitive.RetryNote{Attempt: attempt, By: re.By, Reason: re.Reason}); err != nil {
				return s, err
			}
		}
		if attempt >= limit {
			return s, &RefusedError{Attempts: attempt, Last: re}
		}
		refused = re
	}
}

// sampleOnce runs one attempt through the stages.
func sampleOnce(ctx context.Context, p middleware.Prompt) (middleware.Sampled, error) {
	p, err := stage(ctx, middleware.SampleInput, p)
	if err != nil {
		return middleware.Sampled{Prompt: p}, err
	}
	resp, err := middleware.Sample.Call(ctx, p.Request)
	s := middleware.Sampled{Prompt: p, Response: resp}
	if err != nil {
		return s, err
	}
	if s, err = stage(ctx, middleware.SampleOutput, s); err != nil {
		return s, err
	}
	if s, err = stage(ctx, middleware.SampleMetadata, s); err != nil {
		return s, err
	}
	return stage(ctx, middleware.SampleConfidence, s)
}

// stage runs v through the middleware of api in ctx; the stage's core hands
// v on as it is.
func stage[T any](ctx context.Context, api *middleware.API[T, T], v T) (T, error) {
	if !primitive.Installed(ctx, api) {
		return v, nil
	}
	return primitive.Chain(ctx, api, pass[T])(ctx, v)
}

func pass[T any](_ context.Context, v T) (T, error) { return v, nil }
