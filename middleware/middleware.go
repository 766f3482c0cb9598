// Package middleware is how an application wraps what its agents do: the
// model call and its stages, questions to the user, progress and log
// lines, and tool calls (agents.ToolAPI). Each is an API whose every call
// passes through the middleware installed in the caller's context before
// it reaches its implementation, which whoever runs the turn provides
// (the conversation, the terminal, a test kit); an author never provides
// one.
//
// Middleware is installed for a scope with Around, in the context a scope
// hands its children; app.Config.Scope is that place for every turn of an
// application:
//
//	Scope: func(ctx context.Context) context.Context {
//		return middleware.Sample.Around(ctx, func(next middleware.Handler[llm.Request, llm.Response]) middleware.Handler[llm.Request, llm.Response] {
//			return func(ctx context.Context, req llm.Request) (llm.Response, error) {
//				resp, err := next(ctx, req)
//				// count, audit or change the model's reply here
//				return resp, err
//			}
//		}, middleware.Min)
//	},
//
// A Value is a setting of the same kind, which any scope overrides for its
// children: the model a scope's calls go to (Model), say.
package middleware

import (
	"context"
	"fmt"

	"github.com/sweatpants-go/sweatpants/internal/chain"
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
// in the caller's context before reaching the implementation whoever runs
// the turn provided.
type API[Req, Res any] struct {
	name string
	// missing is the core of a context that provides none; made once, so
	// that a call allocates nothing for it.
	missing Handler[Req, Res]
}

// NewAPI declares an API named name, as package agents declares ToolAPI
// beside the calls it carries; the engine provides its implementation.
func NewAPI[Req, Res any](name string) *API[Req, Res] {
	return &API[Req, Res]{name: name, missing: func(context.Context, Req) (Res, error) {
		var zero Res
		return zero, fmt.Errorf("%s: no implementation in this context", name)
	}}
}

// Name returns the API's name.
func (a *API[Req, Res]) Name() string { return a.name }

// Around returns a child context in which every call of the API passes
// through mw. From the caller to the implementation the order is: Max
// middleware from the outermost scope inwards, then Min middleware from
// the innermost scope outwards.
func (a *API[Req, Res]) Around(ctx context.Context, mw Middleware[Req, Res], prio Priority) context.Context {
	return chain.Push(ctx, a, chain.Layer{MW: mw, Max: prio == Max})
}

// Call runs req through the middleware of ctx to the implementation. It
// fails if no scope provided one.
func (a *API[Req, Res]) Call(ctx context.Context, req Req) (Res, error) {
	return chain.Compose[Handler[Req, Res], Middleware[Req, Res]](chain.Top(ctx, a), a.missing)(ctx, req)
}
