// Package openai is the model provider for OpenAI's chat completions API and
// every endpoint compatible with it, through go-openai. It sends tools, a
// tool choice and a wanted output schema, puts streamed tool calls back
// together, and retries the failures that may pass (see Config).
package openai

import (
	"context"
	"net/http"
	"net/url"
	"time"

	goopenai "github.com/sashabaranov/go-openai"

	"github.com/sweatpants-go/sweatpants/llm"
)

// The defaults of Config's zero fields.
const (
	DefaultTimeout    = 60 * time.Second
	DefaultMaxRetries = 3
	DefaultMaxBackoff = 8 * time.Second
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

	// Timeout bounds each attempt, from sending the request to the end of
	// its answer, streamed or not; zero means DefaultTimeout. It bounds an
	// attempt rather than the whole call so that a rate limit or two
	// does not leave the attempt that succeeds too little time. An attempt
	// that times out is not tried again: the caller has waited Timeout
	// already.
	Timeout time.Duration
	// MaxRetries is how many times a failed attempt may be repeated: after
	// a rate limit, a server error or a dropped connection. Zero means
	// DefaultMaxRetries and a negative number none.
	MaxRetries int
	// MaxBackoff bounds the wait between attempts when the endpoint does
	// not say how long to wait; zero means DefaultMaxBackoff.
	MaxBackoff time.Duration
}

// Provider is an llm.Provider for OpenAI's chat completions API and every endpoint
// compatible with it.
type Provider struct {
	client *goopenai.Client
	model  string
	key    string
	host   string // the endpoint's host, for Label

	timeout    time.Duration
	retries    int
	maxBackoff time.Duration
	// sleep waits between attempts, and returns ctx.Err() at once when ctx
	// is done; tests replace it so that they need not wait.
	sleep func(ctx context.Context, d time.Duration) error
	// now reads the clock, for Retry-After given as a date.
	now func() time.Time
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
	cc.HTTPClient = headerRecorder{cc.HTTPClient}
	host := "api.openai.com"
	if u, err := url.Parse(cc.BaseURL); err == nil && u.Host != "" {
		host = u.Host
	}
	p := &Provider{
		client: goopenai.NewClientWithConfig(cc), model: cfg.Model, key: cfg.APIKey, host: host,
		timeout: cfg.Timeout, retries: cfg.MaxRetries, maxBackoff: cfg.MaxBackoff,
		sleep: sleep, now: time.Now,
	}
	if p.timeout <= 0 {
		p.timeout = DefaultTimeout
	}
	switch {
	case p.retries == 0:
		p.retries = DefaultMaxRetries
	case p.retries < 0:
		p.retries = 0
	}
	if p.maxBackoff <= 0 {
		p.maxBackoff = DefaultMaxBackoff
	}
	return p
}

// Name returns "openai".
func (*Provider) Name() string { return "openai" }

// Model names the model a request that names none goes to; "" when the
// endpoint chooses.
func (p *Provider) Model() string { return p.model }

// Label names the model and the endpoint, such as "gpt-4o-mini @
// localhost:11434", so a page says which model answers; the endpoint is
// its host alone, never its path or credentials.
func (p *Provider) Label() string {
	model := p.model
	if model == "" {
		model = "the default model"
	}
	return model + " @ " + p.host
}

// Complete sends req to the chat completions endpoint, streamed when onDelta
// is non-nil, and tries again after a failure that may pass (see Config)
// unless some visible text already went to onDelta: the user saw it, and a
// second answer would not continue the first. White space a reply starts
// with is held back until its first visible character (screen), so a
// stream cut before then is tried again like a dropped connection.
// Failures are *llm.Error values, or ctx.Err() once ctx is done, even
// while waiting to try again. A request with an image whose bytes were not
// read (attach.Pictures.Fill reads them) is refused before anything is sent.
func (p *Provider) Complete(ctx context.Context, req llm.Request, onDelta func(delta string)) (llm.Response, error) {
	creq := p.request(req)
	if img, ok := unread(req); ok {
		return llm.Response{}, &llm.Error{Provider: p.Name(), Model: creq.Model, Endpoint: p.host,
			Message: "the image " + img.File + " was not read before the call"}
	}
	var s *screen // nil for an unstreamed call
	if onDelta != nil {
		s = &screen{onDelta: onDelta}
		onDelta = s.delta
	}
	for retry := 0; ; retry++ {
		resp, retryAfter, err := p.attempt(ctx, creq, onDelta)
		if err == nil {
			s.done()
			if !req.Logprobs {
				resp.Logprob = nil
			}
			return resp, nil
		}
		if ctx.Err() != nil {
			return llm.Response{}, ctx.Err()
		}
		failure := p.fail(err, creq.Model)
		if s.saw() || retry >= p.retries || !retried(err, failure) {
			return llm.Response{}, failure
		}
		s.again()
		wait, ok := p.backoff(retry, retryAfter)
		if !ok {
			return llm.Response{}, failure
		}
		if err := p.sleep(ctx, wait); err != nil {
			return llm.Response{}, err
		}
	}
}

// attempt makes one call within the Timeout and returns the Retry-After
// header of its answer, if any.
func (p *Provider) attempt(ctx context.Context, creq goopenai.ChatCompletionRequest, onDelta func(string)) (llm.Response, string, error) {
	actx, cancel := context.WithTimeout(ctx, p.timeout)
	defer cancel()
	var h answerHeaders
	actx = context.WithValue(actx, answerHeadersKey{}, &h)
	var (
		resp llm.Response
		err  error
	)
	if onDelta == nil {
		resp, err = p.complete(actx, creq)
	} else {
		resp, err = p.stream(actx, creq, onDelta)
	}
	if err != nil && ctx.Err() == nil && actx.Err() != nil {
		err = timeoutError{p.timeout}
	}
	return resp, h.retryAfter, err
}
