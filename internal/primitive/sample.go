package primitive

import (
	"context"
	"errors"
	"fmt"

	"github.com/sweatpants-go/sweatpants/llm"
)

// The sample pipeline. A call of Sample passes four stages, each an API that
// takes middleware at any scope with Around, like the primitives:
//
//	input → (the model call, SampleAPI) → output → metadata → confidence
//
// input prepares the request (redaction, enrichment); output handles the
// raw reply (format repair, parsing); metadata extracts structured data
// from it; confidence judges it. A middleware at any stage may refuse the
// attempt by returning a RetryError (see Retry): the whole pipeline runs
// again from input, at most SampleAttempts times in all. Each attempt's
// model call is recorded by the turn as its own node, and so is each
// refusal (SampleRetryAPI), with who refused and why; a replayed turn makes
// the same attempts, answered from the record.
//
// A stage with no middleware costs one context lookup; the pipeline adds no
// allocation to a call whose stages are all empty.

// Prompt is a request as the input stage sees it: which attempt it is, and
// why the attempt before was refused.
type Prompt struct {
	Request llm.Request
	// Attempt counts from 1.
	Attempt int
	// Refused says why the previous attempt was refused; nil on the first.
	Refused *RetryError
}

// Sampled is a model call's result as the output, metadata and confidence
// stages see it and change it.
type Sampled struct {
	// Prompt is what the model was asked, after the input stage.
	Prompt   Prompt
	Response llm.Response
	// Value is what a stage read the reply as, such as SampleAs's typed
	// value; nil when no stage read it.
	Value any
	// Metadata is what the metadata stage extracted, by name.
	Metadata map[string]any
	// Confidence, from 0 to 1, is how sure the confidence stage judged the
	// reply to be; nil when nothing judged it.
	Confidence *float64
}

// The stages of the pipeline around the model call (SampleAPI). A stage's
// core hands its value on unchanged: its work is its middleware's.
var (
	SampleInput      = NewAPI[Prompt, Prompt]("sample.input")
	SampleOutput     = NewAPI[Sampled, Sampled]("sample.output")
	SampleMetadata   = NewAPI[Sampled, Sampled]("sample.metadata")
	SampleConfidence = NewAPI[Sampled, Sampled]("sample.confidence")
)

// Model is the model a scope's model calls go to; nil leaves the choice to
// whoever provides SampleAPI (a conversation's turn: the app's model).
var Model = NewValue[llm.Provider]("model", nil)

// Aside marks model calls that are not the reply — a summary, a
// classification, a typed value read out of the user's words — so that
// their text is not streamed to the user as the reply is. SampleAs sets it.
var Aside = NewValue("sample-aside", false)

// SampleAttempts bounds the attempts of one Sample call, the first
// included.
var SampleAttempts = NewValue("sample-attempts", 3)

// RetryError is a stage's refusal of an attempt: the pipeline runs again
// from input. By names the middleware, Reason says why, for the record.
type RetryError struct {
	By     string `json:"by"`
	Reason string `json:"reason"`
}

func (e *RetryError) Error() string { return e.By + " refused the model's answer: " + e.Reason }

// Retry returns the error a stage's middleware returns to refuse an
// attempt and have the pipeline run again.
func Retry(by, reason string) error { return &RetryError{By: by, Reason: reason} }

// RefusedError is a Sample call whose every attempt was refused.
type RefusedError struct {
	Attempts int
	Last     *RetryError
}

func (e *RefusedError) Error() string {
	return fmt.Sprintf("the model's answer was refused %d times; last: %s", e.Attempts, e.Last.Error())
}

func (e *RefusedError) Unwrap() error { return e.Last }

// RetryNote is a refused attempt as it is recorded.
type RetryNote struct {
	Attempt int    `json:"attempt"`
	By      string `json:"by"`
	Reason  string `json:"reason"`
}

// SampleRetryAPI records a refused attempt. The conversation runner provides
// it (a node of the tree); with no core the refusal is not recorded.
var SampleRetryAPI = NewAPI[RetryNote, struct{}]("sample.retry")

// Sample asks the model in ctx to complete req, through the pipeline, and
// returns its reply.
func Sample(ctx context.Context, req llm.Request) (llm.Response, error) {
	s, err := SampleFull(ctx, req)
	return s.Response, err
}

// SampleFull is Sample with everything the stages made of the reply: its
// value, metadata and confidence.
func SampleFull(ctx context.Context, req llm.Request) (Sampled, error) {
	limit := max(SampleAttempts.Get(ctx), 1)
	var refused *RetryError
	for attempt := 1; ; attempt++ {
		s, err := sampleOnce(ctx, Prompt{Request: req, Attempt: attempt, Refused: refused})
		re, ok := errors.AsType[*RetryError](err)
		if !ok {
			return s, err
		}
		if SampleRetryAPI.Installed(ctx) {
			if _, err := SampleRetryAPI.Call(ctx, RetryNote{Attempt: attempt, By: re.By, Reason: re.Reason}); err != nil {
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
func sampleOnce(ctx context.Context, p Prompt) (Sampled, error) {
	p, err := stage(ctx, SampleInput, p)
	if err != nil {
		return Sampled{Prompt: p}, err
	}
	resp, err := SampleAPI.Call(ctx, p.Request)
	s := Sampled{Prompt: p, Response: resp}
	if err != nil {
		return s, err
	}
	if s, err = stage(ctx, SampleOutput, s); err != nil {
		return s, err
	}
	if s, err = stage(ctx, SampleMetadata, s); err != nil {
		return s, err
	}
	return stage(ctx, SampleConfidence, s)
}

// stage runs v through the middleware of api in ctx; the stage's core hands
// v on as it is.
func stage[T any](ctx context.Context, api *API[T, T], v T) (T, error) {
	if !api.Installed(ctx) {
		return v, nil
	}
	return api.chain(ctx, pass[T])(ctx, v)
}

func pass[T any](_ context.Context, v T) (T, error) { return v, nil }
