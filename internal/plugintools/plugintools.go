// Package plugintools carries the plugins' tool sources through a turn's
// context, from the program that holds the plugins (app) to the source a
// Loop lists them with (plugin.Tools), which an author imports and which
// cannot import the program.
package plugintools

import (
	"context"

	"github.com/sweatpants-go/sweatpants/agents"
)

type key struct{}

// With returns ctx in which the tools of the plugin called name come from
// the source byName holds.
func With(ctx context.Context, byName map[string]agents.ToolSource) context.Context {
	return context.WithValue(ctx, key{}, byName)
}

// From returns the source of the plugin called name that ctx holds; nil
// for none.
func From(ctx context.Context, name string) agents.ToolSource {
	m, _ := ctx.Value(key{}).(map[string]agents.ToolSource)
	return m[name]
}
