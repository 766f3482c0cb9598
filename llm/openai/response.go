package openai

import (
	"context"
	"errors"
	"io"
	"strings"

	goopenai "github.com/sashabaranov/go-openai"

	"github.com/sweatpants-go/sweatpants/internal/lineend"
	"github.com/sweatpants-go/sweatpants/llm"
)

// complete makes one unstreamed call.
func (p *Provider) complete(ctx context.Context, creq goopenai.ChatCompletionRequest) (llm.Response, error) {
	out, err := p.client.CreateChatCompletion(ctx, creq)
	if err != nil {
		return llm.Response{}, err
	}
	if len(out.Choices) == 0 {
		return llm.Response{}, errNoChoices
	}
	c := out.Choices[0]
	var lp logprobMean
	if c.LogProbs != nil {
		for _, t := range c.LogProbs.Content {
			lp.add(t.LogProb)
		}
	}
	var calls []llm.ToolCall
	for _, tc := range c.Message.ToolCalls {
		calls = append(calls, llm.ToolCall{ID: tc.ID, Name: tc.Function.Name, Arguments: tc.Function.Arguments})
	}
	return llm.Response{
		Content:      lineend.Normalize(c.Message.Content),
		Model:        out.Model,
		Provider:     "openai",
		FinishReason: finishReason(string(c.FinishReason), calls),
		Usage:        usage(out.Usage),
		Logprob:      lp.mean(),
		ToolCalls:    calls,
	}, nil
}

// stream makes one streamed call, passing each piece of text to onDelta and
// putting the tool calls together from their pieces.
func (p *Provider) stream(ctx context.Context, creq goopenai.ChatCompletionRequest, onDelta func(string)) (llm.Response, error) {
	creq.StreamOptions = &goopenai.StreamOptions{IncludeUsage: true}
	s, err := p.client.CreateChatCompletionStream(ctx, creq)
	if err != nil {
		return llm.Response{}, err
	}
	defer s.Close()
	resp := llm.Response{Provider: "openai", Model: creq.Model}
	var (
		text  strings.Builder
		lp    logprobMean
		calls toolCalls
		lines lineend.Stream // a model's text is the user's to see: its line ends are normalized
	)
	for {
		chunk, err := s.Recv()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return llm.Response{}, err
		}
		if chunk.Model != "" {
			resp.Model = chunk.Model
		}
		if chunk.Usage != nil {
			resp.Usage = usage(*chunk.Usage)
		}
		for _, c := range chunk.Choices {
			if c.Index != 0 {
				continue
			}
			if c.FinishReason != "" {
				resp.FinishReason = string(c.FinishReason)
			}
			if c.Logprobs != nil {
				for _, t := range c.Logprobs.Content {
					lp.add(t.Logprob)
				}
			}
			for _, tc := range c.Delta.ToolCalls {
				calls.add(tc)
			}
			if d := lines.Next(c.Delta.Content); d != "" {
				text.WriteString(d)
				onDelta(d)
			}
		}
	}
	// go-openai reports a stream cut short like one that ended with
	// [DONE]; only the missing finish reason tells them apart.
	if resp.FinishReason == "" {
		return llm.Response{}, errStreamCut
	}
	resp.Content = text.String()
	resp.Logprob = lp.mean()
	resp.ToolCalls = calls.list
	resp.FinishReason = finishReason(resp.FinishReason, resp.ToolCalls)
	return resp, nil
}

// toolCalls puts streamed tool calls together. Each piece names its call by
// index; the first piece of a call carries its id and name, and the pieces
// of its arguments are joined in order.
type toolCalls struct {
	list []llm.ToolCall
	at   map[int]int // a call's index in the stream → its place in list
}

func (a *toolCalls) add(piece goopenai.ToolCall) {
	i, ok := -1, false
	switch {
	case piece.Index != nil:
		i, ok = a.at[*piece.Index]
	case piece.ID == "" && len(a.list) > 0:
		// An endpoint that sends no index continues the last call until
		// a piece with an id starts the next.
		i, ok = len(a.list)-1, true
	}
	if !ok {
		a.list = append(a.list, llm.ToolCall{})
		i = len(a.list) - 1
		if piece.Index != nil {
			if a.at == nil {
				a.at = map[int]int{}
			}
			a.at[*piece.Index] = i
		}
	}
	c := &a.list[i]
	// Some endpoints repeat the id and name in every piece; the first one
	// names the call.
	if c.ID == "" {
		c.ID = piece.ID
	}
	if c.Name == "" {
		c.Name = piece.Function.Name
	}
	c.Arguments += piece.Function.Arguments
}

// finishReason is "tool_calls" when the model called tools and stopped of
// its own accord, as llm.Response promises; some compatible endpoints say
// "stop" then.
func finishReason(reason string, calls []llm.ToolCall) string {
	if len(calls) > 0 && reason == string(goopenai.FinishReasonStop) {
		return string(goopenai.FinishReasonToolCalls)
	}
	return reason
}

func usage(u goopenai.Usage) llm.Usage {
	return llm.Usage{PromptTokens: u.PromptTokens, CompletionTokens: u.CompletionTokens, TotalTokens: u.TotalTokens}
}

// logprobMean averages token log probabilities.
type logprobMean struct {
	sum float64
	n   int
}

func (m *logprobMean) add(lp float64) { m.sum += lp; m.n++ }

func (m *logprobMean) mean() *float64 {
	if m.n == 0 {
		return nil
	}
	v := m.sum / float64(m.n)
	return &v
}
