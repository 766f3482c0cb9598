// Package openai is the model provider for OpenAI's chat completions API and
// every endpoint compatible with it, through go-openai.
package openai

import (
	"context"
	"errors"
	"io"
	"math"
	"net/http"
	"strings"

	goopenai "github.com/sashabaranov/go-openai"

	"github.com/sweatpants-go/sweatpants/backend/lineend"
	"github.com/sweatpants-go/sweatpants/backend/llm"
)

// Config configures a Provider.
type Config struct {
	APIKey string
	// BaseURL is the API's base URL, such as "http://localhost:11434/v1" for
	// any OpenAI-compatible endpoint; empty means OpenAI's own.
	BaseURL string
	// Model is used when a request names none.
	Model string
	// HTTPClient, when non-nil, makes the HTTP calls.
	HTTPClient *http.Client
}

// Provider is an llm.Provider for OpenAI's chat completions API and every endpoint
// compatible with it.
type Provider struct {
	client *goopenai.Client
	model  string
	key    string
}

// New returns a provider configured by cfg.
func New(cfg Config) *Provider {
	cc := goopenai.DefaultConfig(cfg.APIKey)
	if cfg.BaseURL != "" {
		cc.BaseURL = cfg.BaseURL
	}
	if cfg.HTTPClient != nil {
		cc.HTTPClient = cfg.HTTPClient
	}
	return &Provider{client: goopenai.NewClientWithConfig(cc), model: cfg.Model, key: cfg.APIKey}
}

// Name returns "openai".
func (*Provider) Name() string { return "openai" }

// Complete sends req to the chat completions endpoint, streamed when onDelta
// is non-nil. Failures are *llm.Error values, or ctx.Err() once ctx is done.
func (p *Provider) Complete(ctx context.Context, req llm.Request, onDelta func(delta string)) (llm.Response, error) {
	creq := p.request(req)
	var (
		resp llm.Response
		err  error
	)
	if onDelta == nil {
		resp, err = p.complete(ctx, creq)
	} else {
		resp, err = p.stream(ctx, creq, onDelta)
	}
	if err != nil {
		if ctx.Err() != nil {
			return llm.Response{}, ctx.Err()
		}
		return llm.Response{}, p.fail(err)
	}
	if !req.Logprobs {
		resp.Logprob = nil
	}
	return resp, nil
}

// request translates req into go-openai's request.
func (p *Provider) request(req llm.Request) goopenai.ChatCompletionRequest {
	creq := goopenai.ChatCompletionRequest{
		Model:     req.Model,
		MaxTokens: req.MaxTokens,
		LogProbs:  req.Logprobs,
	}
	if creq.Model == "" {
		creq.Model = p.model
	}
	if t := req.Temperature; t != nil {
		// go-openai omits a zero temperature, which the API reads as the
		// default of 1; the smallest positive float32 keeps "greedy".
		creq.Temperature = max(*t, math.SmallestNonzeroFloat32)
	}
	for _, m := range req.Messages {
		creq.Messages = append(creq.Messages, goopenai.ChatCompletionMessage{Role: string(m.Role), Content: m.Content})
	}
	return creq
}

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
	return llm.Response{
		Content:      lineend.Normalize(c.Message.Content),
		Model:        out.Model,
		Provider:     "openai",
		FinishReason: string(c.FinishReason),
		Usage:        usage(out.Usage),
		Logprob:      lp.mean(),
	}, nil
}

// stream makes one streamed call, passing each piece of text to onDelta.
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
	return resp, nil
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
