package primitive

import "github.com/sweatpants-go/sweatpants/middleware"

// Aside marks model calls that are not the reply — a summary, a
// classification, a typed value read out of the user's words — so that
// their text is not streamed to the user as the reply is. turn.SampleAs
// sets it.
var Aside = middleware.NewValue("sample-aside", false)

// RetryNote is a refused attempt of the sample pipeline as it is recorded.
type RetryNote struct {
	Attempt int    `json:"attempt"`
	By      string `json:"by"`
	Reason  string `json:"reason"`
}

// SampleRetryAPI records a refused attempt. The conversation runner provides
// it (a node of the tree); with no core the refusal is not recorded.
var SampleRetryAPI = middleware.NewAPI[RetryNote, struct{}]("sample.retry")
