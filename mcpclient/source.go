package mcpclient

import (
	"context"

	"github.com/sweatpants-go/sweatpants/agents"
	"github.com/sweatpants-go/sweatpants/internal/outsidetools"
)

// All is the tools of every server the program uses, for Loop.Sources:
// none, and no call made, where none is configured.
func All() agents.ToolSource { return source{} }

// Named is the tools of the servers named, of those the program uses; a
// name not configured is left out.
func Named(names ...string) agents.ToolSource { return source{names: names} }

// source lists the tools of the servers the turn's context holds: the
// program puts its servers there for every turn.
type source struct{ names []string }

func (src source) Tools(ctx context.Context) ([]agents.AnyTool, error) {
	l := outsidetools.From(ctx)
	if l == nil {
		return nil, nil
	}
	return l.Tools(ctx, src.names)
}
