// Package offline is a deterministic model provider that needs no network,
// for demos and tests; it is the one used when no OpenAI key is set.
package offline

import (
	"context"
	"strings"
	"unicode"

	"github.com/sweatpants-go/sweatpants/backend/llm"
)

// Model is the model name the offline provider reports, so that its
// answers are never mistaken for a real model's.
const Model = "offline-echo-1"

// Provider is a deterministic llm.Provider that needs no network: it answers by
// reflecting the conversation back, summarizes when asked to, and writes
// best-effort JSON when asked for JSON. The same request always gets the
// same response. Usage counts words as tokens; it gives no logprobs.
type Provider struct{}

// New returns the offline provider.
func New() *Provider { return &Provider{} }

// Name returns "offline".
func (*Provider) Name() string { return "offline" }

// Complete composes the reply and streams it word by word through onDelta.
// It returns ctx.Err() as soon as it sees ctx cancelled, between words.
func (*Provider) Complete(ctx context.Context, req llm.Request, onDelta func(delta string)) (llm.Response, error) {
	if err := ctx.Err(); err != nil {
		return llm.Response{}, err
	}
	pieces := splitWords(compose(req.Messages))
	finish := "stop"
	if req.MaxTokens > 0 && len(pieces) > req.MaxTokens {
		pieces, finish = pieces[:req.MaxTokens], "length"
	}
	var b strings.Builder
	for _, p := range pieces {
		if err := ctx.Err(); err != nil {
			return llm.Response{}, err
		}
		b.WriteString(p)
		if onDelta != nil {
			onDelta(p)
		}
	}
	prompt := 0
	for _, m := range req.Messages {
		prompt += len(strings.Fields(m.Content))
	}
	return llm.Response{
		Content:      b.String(),
		Model:        Model,
		Provider:     "offline",
		FinishReason: finish,
		Usage:        llm.Usage{PromptTokens: prompt, CompletionTokens: len(pieces), TotalTokens: prompt + len(pieces)},
	}, nil
}

// splitWords cuts s into words, each carrying the white space before it, so
// that the pieces concatenate back to s exactly.
func splitWords(s string) []string {
	var pieces []string
	start, inWord := 0, false
	for i, r := range s {
		space := unicode.IsSpace(r)
		if space && inWord {
			pieces = append(pieces, s[start:i])
			start = i
		}
		inWord = !space
	}
	if start < len(s) {
		pieces = append(pieces, s[start:])
	}
	return pieces
}
