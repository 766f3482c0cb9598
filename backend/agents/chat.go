package agents

import "context"

// Chat is an agent a conversation can talk to: each user message starts a
// turn, and the text the turn returns is the assistant's reply.
type Chat struct {
	Name        string
	Description string
	Turn        func(ctx context.Context, message string) (string, error)
}

// Registry maps chat agent names to agents; the first is the default.
type Registry struct {
	order  []string
	byName map[string]Chat
}

// NewRegistry returns a registry of chats; the first is the default.
func NewRegistry(chats ...Chat) *Registry {
	r := &Registry{byName: make(map[string]Chat, len(chats))}
	for _, c := range chats {
		r.order = append(r.order, c.Name)
		r.byName[c.Name] = c
	}
	return r
}

// Default returns the default chat agent.
func (r *Registry) Default() Chat { return r.byName[r.order[0]] }

// Get returns the chat agent named name.
func (r *Registry) Get(name string) (Chat, bool) {
	c, ok := r.byName[name]
	return c, ok
}

// All lists the chat agents in registration order.
func (r *Registry) All() []Chat {
	out := make([]Chat, 0, len(r.order))
	for _, n := range r.order {
		out = append(out, r.byName[n])
	}
	return out
}
