package middleware

import "context"

// Value is a typed context value with a default, the Go form of a scoped
// setting: any scope can override it for its children with With, and
// lookups see the nearest override.
type Value[T any] struct {
	name string
	def  T
}

type valueKey[T any] struct{ v *Value[T] }

// NewValue declares a context value named name (for diagnostics) whose lookups
// return def until a scope overrides it.
func NewValue[T any](name string, def T) *Value[T] {
	return &Value[T]{name: name, def: def}
}

// Name returns the name the value was declared with.
func (v *Value[T]) Name() string { return v.name }

// With returns a child context in which Get returns x.
func (v *Value[T]) With(ctx context.Context, x T) context.Context {
	return context.WithValue(ctx, valueKey[T]{v}, x)
}

// Get returns the nearest override of v in ctx, or its default.
func (v *Value[T]) Get(ctx context.Context) T {
	if x, ok := ctx.Value(valueKey[T]{v}).(T); ok {
		return x
	}
	return v.def
}

// Lookup reports the nearest override of v in ctx and whether there was one.
func (v *Value[T]) Lookup(ctx context.Context) (T, bool) {
	x, ok := ctx.Value(valueKey[T]{v}).(T)
	return x, ok
}
