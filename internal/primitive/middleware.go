package primitive

import (
	"context"
	"fmt"
)

// Handler is one operation of an API: a primitive such as sample or elicit,
// a tool, or a protocol method.
type Handler[Req, Res any] func(ctx context.Context, req Req) (Res, error)

// Middleware wraps a Handler. It may change the request, the result, retry
// by calling next again, or answer without calling next at all.
type Middleware[Req, Res any] func(next Handler[Req, Res]) Handler[Req, Res]

// Priority places a middleware within its scope's layer of the chain.
type Priority int

const (
	// Max middleware sees requests first: outer scopes outermost.
	Max Priority = iota
	// Min middleware sees results first: inner scopes closest to the core.
	Min
)

func (p Priority) String() string {
	if p == Max {
		return "max"
	}
	return "min"
}

// API is a named operation whose calls pass through the middleware installed
// in the caller's context before reaching the core installed with Provide.
type API[Req, Res any] struct {
	name string
}

type apiKey[Req, Res any] struct{ api *API[Req, Res] }

// layer is one link of an API's chain in a context: the nearest scope's
// middleware points at its parent's.
type layer[Req, Res any] struct {
	parent *layer[Req, Res]
	mw     Middleware[Req, Res]
	prio   Priority
	core   Handler[Req, Res] // non-nil for a Provide layer
}

// NewAPI declares an API named name.
func NewAPI[Req, Res any](name string) *API[Req, Res] {
	return &API[Req, Res]{name: name}
}

// Name returns the API's name.
func (a *API[Req, Res]) Name() string { return a.name }

func (a *API[Req, Res]) top(ctx context.Context) *layer[Req, Res] {
	l, _ := ctx.Value(apiKey[Req, Res]{a}).(*layer[Req, Res])
	return l
}

// Provide returns a child context in which core implements the API. An inner
// Provide replaces an outer one for its children; middleware installed around
// either still applies.
func (a *API[Req, Res]) Provide(ctx context.Context, core Handler[Req, Res]) context.Context {
	return context.WithValue(ctx, apiKey[Req, Res]{a}, &layer[Req, Res]{parent: a.top(ctx), core: core})
}

// Around returns a child context in which every call of the API passes
// through mw. From the caller to the core the order is: Max middleware from
// the outermost scope inwards, then Min middleware from the innermost scope
// outwards, then the core.
func (a *API[Req, Res]) Around(ctx context.Context, mw Middleware[Req, Res], prio Priority) context.Context {
	return context.WithValue(ctx, apiKey[Req, Res]{a}, &layer[Req, Res]{parent: a.top(ctx), mw: mw, prio: prio})
}

// Call runs req through the middleware chain of ctx to the core. It fails if
// no scope provided a core.
func (a *API[Req, Res]) Call(ctx context.Context, req Req) (Res, error) {
	return a.chain(ctx, nil)(ctx, req)
}

// Installed reports whether any scope of ctx installed middleware or a core
// for the API.
func (a *API[Req, Res]) Installed(ctx context.Context) bool { return a.top(ctx) != nil }

// chain composes the handler for ctx, with fallback as the core when no
// scope provided one. Walking from the innermost layer out, Max middleware
// is wrapped innermost-first (so the outermost ends up outside) and Min
// middleware the other way round.
func (a *API[Req, Res]) chain(ctx context.Context, fallback Handler[Req, Res]) Handler[Req, Res] {
	core := fallback
	provided := false
	var maxes, mins []Middleware[Req, Res] // innermost first
	for l := a.top(ctx); l != nil; l = l.parent {
		switch {
		case l.core != nil:
			if !provided {
				core, provided = l.core, true
			}
		case l.prio == Max:
			maxes = append(maxes, l.mw)
		default:
			mins = append(mins, l.mw)
		}
	}
	if core == nil {
		name := a.name
		core = func(context.Context, Req) (Res, error) {
			var zero Res
			return zero, fmt.Errorf("%s: no implementation in this context", name)
		}
	}
	h := core
	// Min: outer scopes nearer the core, so wrap outermost first.
	for i := len(mins) - 1; i >= 0; i-- {
		h = mins[i](h)
	}
	// Max: inner scopes nearer the min layer, so wrap innermost first.
	for _, mw := range maxes {
		h = mw(h)
	}
	return h
}
