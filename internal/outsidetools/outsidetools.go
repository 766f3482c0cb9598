// Package outsidetools carries the outside servers' tools through a
// turn's context, from the program that connects the servers (package
// mcpconn, started by app) to the sources a Loop lists them with
// (mcpclient.All, Named), which an author imports and which cannot import
// the engine that imports them.
package outsidetools

import (
	"context"

	"github.com/sweatpants-go/sweatpants/agents"
)

// Lister lists the tools of the servers named, or of every server for nil
// names.
type Lister interface {
	Tools(ctx context.Context, names []string) ([]agents.AnyTool, error)
}

type key struct{}

// With returns ctx in which the outside servers' tools come from l.
func With(ctx context.Context, l Lister) context.Context {
	return context.WithValue(ctx, key{}, l)
}

// From returns the Lister ctx holds; nil for none.
func From(ctx context.Context) Lister {
	l, _ := ctx.Value(key{}).(Lister)
	return l
}
