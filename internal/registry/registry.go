// Package registry holds the assistants a program serves, by name, for the
// engine that picks one for each conversation: an application hands its
// assistants over as a list (app.Config.Assistants), and only the engine
// looks them up.
package registry

import "github.com/sweatpants-go/sweatpants/agents"

// Assistants maps assistant names to assistants; the first is the default.
type Assistants struct {
	order  []string
	byName map[string]agents.Assistant
}

// New returns a registry of assistants; the first is the default.
func New(assistants ...agents.Assistant) *Assistants {
	r := &Assistants{byName: make(map[string]agents.Assistant, len(assistants))}
	for _, c := range assistants {
		r.order = append(r.order, c.Name)
		r.byName[c.Name] = c
	}
	return r
}

// Default returns the default assistant.
func (r *Assistants) Default() agents.Assistant { return r.byName[r.order[0]] }

// Get returns the assistant named name.
func (r *Assistants) Get(name string) (agents.Assistant, bool) {
	c, ok := r.byName[name]
	return c, ok
}

// All lists the assistants in registration order.
func (r *Assistants) All() []agents.Assistant {
	out := make([]agents.Assistant, 0, len(r.order))
	for _, n := range r.order {
		out = append(out, r.byName[n])
	}
	return out
}
