// Package primitive is the engine's side of the primitives agents are
// written with (package turn) and of the middleware around them (package
// middleware): the hook that provides an API's implementation in a scope,
// the implementations a runner of turns gives them (Cores), the APIs and
// values only the engine installs (state, fork, the clock, the files a
// turn reads), and the scope whose children never outlive it.
package primitive

import (
	"context"

	"github.com/sweatpants-go/sweatpants/internal/chain"
	"github.com/sweatpants-go/sweatpants/middleware"
)

// Provide returns a child context in which core implements api. An inner
// Provide replaces an outer one for its children; middleware installed
// around either still applies.
func Provide[Req, Res any](ctx context.Context, api *middleware.API[Req, Res], core middleware.Handler[Req, Res]) context.Context {
	return chain.Push(ctx, api, chain.Layer{Core: core})
}

// Installed reports whether any scope of ctx installed middleware or an
// implementation for api.
func Installed[Req, Res any](ctx context.Context, api *middleware.API[Req, Res]) bool {
	return chain.Top(ctx, api) != nil
}

// Chain composes the handler of api's calls in ctx, with fallback as the
// implementation when no scope provided one: for an API that works without
// one, such as a stage of the sample pipeline or the provider call.
func Chain[Req, Res any](ctx context.Context, api *middleware.API[Req, Res], fallback middleware.Handler[Req, Res]) middleware.Handler[Req, Res] {
	return chain.Compose[middleware.Handler[Req, Res], middleware.Middleware[Req, Res]](chain.Top(ctx, api), fallback)
}
