// Package offline is a deterministic model provider that needs no network,
// for demos and tests; it is the one used when no OpenAI key is set.
package offline

import (
	"context"
	"strings"
	"unicode"

	"github.com/sweatpants-go/sweatpants/llm"
)

// Model is the model name the offline provider reports, so that its
// answers are never mistaken for a real model's.
const Model = "offline-echo-1"

// Provider is a deterministic llm.Provider that needs no network: it answers by
// reflecting the conversation back, summarizes when asked to, and writes
// best-effort JSON when asked for JSON. It can drive an agent too: offered
// tools, it calls the one whose name and description best match the latest
// user message, with arguments read from that message; given the results, it
// reports them in text; asked for an output schema, it writes JSON valid for
// it. Small talk — "hi", "thanks", "how are you", "are we there yet", "tell
// me a joke", "what can you do" — it answers as small talk, in words, even
// when a tool is required: only a tool the choice names is called for it.
// Files attached to the latest user message (as package attach gives them
// to a model) it describes: each one's name and size, a text file's lines,
// a CSV's columns, a JSON object's keys, an image's type; what they say it
// does not take for instructions.
// The same request always gets the same response: relative dates such as
// "tomorrow" are read against a system message's "Today is YYYY-MM-DD", and
// left out without one, never against the clock. Usage counts words as
// tokens; it gives no logprobs.
type Provider struct{}

// New returns the offline provider.
func New() *Provider { return &Provider{} }

// Model returns Model, the one model it has.
func (*Provider) Model() string { return Model }

// Name returns "offline".
func (*Provider) Name() string { return "offline" }

// Complete answers req with tool calls or with text. Text streams word by
// word through onDelta; tool calls are not streamed, and MaxTokens does not
// cut them. It returns ctx.Err() as soon as it sees ctx cancelled, between
// words, and an *llm.Error when the tool choice names no offered tool.
func (*Provider) Complete(ctx context.Context, req llm.Request, onDelta func(delta string)) (llm.Response, error) {
	if err := ctx.Err(); err != nil {
		return llm.Response{}, err
	}
	prompt := 0
	for _, m := range req.Messages {
		prompt += len(strings.Fields(m.Content))
	}
	calls, err := callTools(req)
	if err != nil {
		return llm.Response{}, err
	}
	if len(calls) > 0 {
		words := 0
		for _, c := range calls {
			words += 1 + len(strings.Fields(c.Arguments))
		}
		return llm.Response{
			Model:        Model,
			Provider:     "offline",
			FinishReason: "tool_calls",
			ToolCalls:    calls,
			Usage:        llm.Usage{PromptTokens: prompt, CompletionTokens: words, TotalTokens: prompt + words},
		}, nil
	}
	pieces := splitWords(reply(req))
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
	return llm.Response{
		Content:      b.String(),
		Model:        Model,
		Provider:     "offline",
		FinishReason: finish,
		Usage:        llm.Usage{PromptTokens: prompt, CompletionTokens: len(pieces), TotalTokens: prompt + len(pieces)},
	}, nil
}

// reply writes the text answer to req: JSON for a requested output schema,
// a report of the tool results that answer the latest user message, or
// else the everyday reply.
func reply(req llm.Request) string {
	if req.Output != nil {
		return outputReply(req.Messages, req.Output.Schema)
	}
	if results := toolResults(req.Messages); len(results) > 0 {
		system, _ := instructions(req.Messages)
		return reportResults(system, results)
	}
	return compose(req.Messages, req.Tools)
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
