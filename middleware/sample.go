package middleware

import "github.com/sweatpants-go/sweatpants/llm"

// The sample pipeline. A model call (turn.Sample) passes four stages, each
// an API that takes middleware at any scope with Around:
//
//	SampleInput → (the model call, Sample) → SampleOutput → SampleMetadata → SampleConfidence
//
// input prepares the request (redaction, enrichment); output handles the
// raw reply (format repair, parsing); metadata extracts structured data
// from it; confidence judges it. A middleware at any stage may refuse the
// attempt by returning Retry's error: the whole pipeline runs again from
// input, at most SampleAttempts times in all. Each attempt's model call is
// recorded by the turn as its own, and so is each refusal, with who
// refused and why; a replayed turn makes the same attempts, answered from
// the record. A stage's own implementation hands its value on unchanged:
// its work is its middleware's.
var (
	SampleInput      = NewAPI[Prompt, Prompt]("sample.input")
	SampleOutput     = NewAPI[Sampled, Sampled]("sample.output")
	SampleMetadata   = NewAPI[Sampled, Sampled]("sample.metadata")
	SampleConfidence = NewAPI[Sampled, Sampled]("sample.confidence")
)

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
	// Value is what a stage read the reply as, such as turn.SampleAs's
	// typed value; nil when no stage read it.
	Value any
	// Metadata is what the metadata stage extracted, by name.
	Metadata map[string]any
	// Confidence, from 0 to 1, is how sure the confidence stage judged the
	// reply to be; nil when nothing judged it.
	Confidence *float64
}

// RetryError is a stage's refusal of an attempt: the pipeline runs again
// from input. By names the middleware, Reason says why, for the record.
type RetryError struct {
	By     string `json:"by"`
	Reason string `json:"reason"`
}

func (e *RetryError) Error() string { return e.By + " refused the model's answer: " + e.Reason }

// Retry returns the error a stage's middleware returns to refuse an
// attempt and have the pipeline run again; by names the stage, reason
// says why.
func Retry(by, reason string) error { return &RetryError{By: by, Reason: reason} }
