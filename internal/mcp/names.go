package mcp

import (
	"fmt"
	"slices"
)

// OwnNames returns the same tools listed under their own names, without
// the agent's prefix ("getWeather" for "weather.getWeather"): for a server
// of one agent's tools (mcp --agent NAME --own-names), or of agents whose
// tool names do not clash, and for clients that expect the names a tool
// was written with. A call is recorded under the qualified name all the
// same, so the conversation reads alike either way. Two tools of one name
// are an error that names them.
func (t *Tools) OwnNames() (*Tools, error) {
	seen := map[string]string{}
	for _, n := range t.order {
		tl := t.byName[n]
		if other, dup := seen[tl.info.Name]; dup {
			return nil, fmt.Errorf("the tools %s and %s cannot both be listed under their own name %q", other, n, tl.info.Name)
		}
		seen[tl.info.Name] = n
	}
	return &Tools{byName: t.byName, order: slices.Clone(t.order), own: true}, nil
}

// listedName is the name the tool of qualified name q is listed by.
func (t *Tools) listedName(q string) string {
	if t.own {
		return t.byName[q].info.Name
	}
	return q
}
