package agents

import "context"

// Assistant is what a conversation talks to: each user message starts a
// turn of its Turn function, and the text the turn returns is the reply.
// An assistant's turn uses agents — named sets of tools (Agent) — and the
// primitives of the runtime; the two are kept apart because a tool set can
// serve many assistants, and a test can swap one for a double.
type Assistant struct {
	Name        string
	Description string
	Turn        func(ctx context.Context, message string) (string, error)
}

// Registry maps assistant names to assistants; the first is the default.
type Registry struct {
	order  []string
	byName map[string]Assistant
}

// NewRegistry returns a registry of assistants; the first is the default.
func NewRegistry(assistants ...Assistant) *Registry {
	r := &Registry{byName: make(map[string]Assistant, len(assistants))}
	for _, c := range assistants {
		r.order = append(r.order, c.Name)
		r.byName[c.Name] = c
	}
	return r
}

// Default returns the default assistant.
func (r *Registry) Default() Assistant { return r.byName[r.order[0]] }

// Get returns the assistant named name.
func (r *Registry) Get(name string) (Assistant, bool) {
	c, ok := r.byName[name]
	return c, ok
}

// All lists the assistants in registration order.
func (r *Registry) All() []Assistant {
	out := make([]Assistant, 0, len(r.order))
	for _, n := range r.order {
		out = append(out, r.byName[n])
	}
	return out
}
