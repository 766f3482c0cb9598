package openai

import (
	"context"
	"time"
)

// SetSleep replaces how p waits between attempts, so that a test need not
// wait real seconds and can see the waits asked for.
func SetSleep(p *Provider, f func(ctx context.Context, d time.Duration) error) { p.sleep = f }

// SetNow replaces p's clock, which reads Retry-After dates.
func SetNow(p *Provider, now func() time.Time) { p.now = now }

// Sleep is the wait a Provider uses unless a test replaces it.
var Sleep = sleep
