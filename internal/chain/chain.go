// Package chain keeps, in a context, what each scope installed for an API
// of package middleware: its middleware, and the core that implements it.
// It sits beneath both the public package, where an author installs
// middleware, and the engine, which provides the cores: the one list of
// layers is what lets an inner core replace an outer one while every
// scope's middleware still applies, and keeping it here keeps the install
// hook for cores out of the author's API.
package chain

import "context"

// Layer is one scope's link of an API's chain: a middleware or a core,
// pointing at the layer of the scope around it.
type Layer struct {
	Parent *Layer
	// MW is a middleware.Middleware of the API's types; nil for a core.
	MW any
	// Max says MW sees requests before the Min middleware of every scope.
	Max bool
	// Core is a middleware.Handler of the API's types; nil for middleware.
	Core any
}

// key keys an API's innermost layer in a context; api is the API's
// pointer, whose identity names it. A key holding a pointer alone is
// stored in an interface without an allocation, which matters on every
// call of a primitive.
type key[P comparable] struct{ api P }

// Top returns the innermost layer installed for api in ctx, or nil.
func Top[P comparable](ctx context.Context, api P) *Layer {
	l, _ := ctx.Value(key[P]{api}).(*Layer)
	return l
}

// Push returns a child of ctx in which l is api's innermost layer.
func Push[P comparable](ctx context.Context, api P, l Layer) context.Context {
	l.Parent = Top(ctx, api)
	return context.WithValue(ctx, key[P]{api}, &l)
}

// Compose builds the handler for the layers from top outwards, with
// fallback as the core when no scope provided one. From the caller to the
// core the order is: Max middleware from the outermost scope inwards, then
// Min middleware from the innermost scope outwards, then the core.
func Compose[H any, M ~func(H) H](top *Layer, fallback H) H {
	core, provided := fallback, false
	var maxes, mins []M // innermost first
	for l := top; l != nil; l = l.Parent {
		switch {
		case l.Core != nil:
			if !provided {
				core, provided = l.Core.(H), true
			}
		case l.Max:
			maxes = append(maxes, l.MW.(M))
		default:
			mins = append(mins, l.MW.(M))
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
