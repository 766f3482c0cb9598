// Package fallback puts a second model provider behind a first one. The
// secondary answers when the primary fails in a way that may pass (a rate
// limit, a server error, a dropped connection, a timeout) after the
// primary's own retries, and answers alone for a short cool-down once the
// primary has failed so several times in a row, so that users do not each
// wait out its retries. It never answers after the primary streamed text:
// the user saw that text, and another model would not continue it.
//
// The package does no I/O of its own; it only chooses which provider to
// call.
package fallback

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/sweatpants-go/sweatpants/llm"
)

// The defaults of the options.
const (
	DefaultFailures = 3
	DefaultCoolDown = 30 * time.Second
)

// Provider is an llm.Provider that calls a primary provider and falls back
// on a secondary one. It is safe for concurrent use.
type Provider struct {
	primary, secondary llm.Provider
	failures           int
	coolDown           time.Duration
	now                func() time.Time

	mu     sync.Mutex
	failed int       // the primary's failures in a row that may pass
	until  time.Time // the end of the cool-down, when one is under way
}

// Option configures a Provider.
type Option func(*Provider)

// AfterFailures makes n failures of the primary in a row (that may pass)
// start a cool-down; the default is DefaultFailures.
func AfterFailures(n int) Option { return func(p *Provider) { p.failures = max(n, 1) } }

// CoolDown sets how long the secondary answers alone once the primary has
// failed too often; the default is DefaultCoolDown.
func CoolDown(d time.Duration) Option { return func(p *Provider) { p.coolDown = d } }

// Clock sets the clock that times the cool-down, for tests.
func Clock(now func() time.Time) Option { return func(p *Provider) { p.now = now } }

// New returns a provider that calls primary and falls back on secondary.
func New(primary, secondary llm.Provider, opts ...Option) *Provider {
	p := &Provider{primary: primary, secondary: secondary, failures: DefaultFailures, coolDown: DefaultCoolDown, now: time.Now}
	for _, o := range opts {
		o(p)
	}
	return p
}

// Name names both providers, such as "openai (fallback: offline)".
func (p *Provider) Name() string {
	return p.primary.Name() + " (fallback: " + p.secondary.Name() + ")"
}

// Label labels both providers as the pages name them.
func (p *Provider) Label() string {
	return llm.Label(p.primary) + " (fallback: " + llm.Label(p.secondary) + ")"
}

// Complete answers req with the primary, or with the secondary during a
// cool-down or after the primary failed in a way that may pass without
// streaming any text. It returns the error of the last provider called:
// ctx.Err() once ctx is done, and otherwise an *llm.Error as providers do.
func (p *Provider) Complete(ctx context.Context, req llm.Request, onDelta func(delta string)) (llm.Response, error) {
	if p.coolingDown() {
		return p.secondary.Complete(ctx, req, onDelta)
	}
	shown := false
	show := onDelta
	if onDelta != nil {
		show = func(d string) {
			shown = true
			onDelta(d)
		}
	}
	resp, err := p.primary.Complete(ctx, req, show)
	if err == nil {
		p.record(true)
		return resp, nil
	}
	var e *llm.Error
	if ctx.Err() != nil || !errors.As(err, &e) || !e.Retryable {
		// A refusal says nothing of the primary's health, and the
		// secondary would refuse the same request.
		return resp, err
	}
	p.record(false)
	if shown {
		return resp, err
	}
	return p.secondary.Complete(ctx, req, onDelta)
}

// coolingDown reports whether the primary is resting.
func (p *Provider) coolingDown() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.now().Before(p.until)
}

// record counts a success or a failure of the primary, and starts a
// cool-down at the failure that makes too many in a row. The count starts
// over then, so the primary gets as many tries after a cool-down.
func (p *Provider) record(ok bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if ok {
		p.failed = 0
		return
	}
	p.failed++
	if p.failed >= p.failures {
		p.failed = 0
		p.until = p.now().Add(p.coolDown)
	}
}
