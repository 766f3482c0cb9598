package chat

import (
	"context"
	"sync"

	"github.com/sweatpants-go/sweatpants/agents"
	"github.com/sweatpants-go/sweatpants/policy"
)

// levels keeps each assistant's policy compiled (policy.NewLevel), so that
// a turn's start narrows the program's rules by it without compiling it
// again: the assistants are the service's from its start to its end.
type levels struct {
	mu sync.Mutex
	by map[string]*policy.Level
}

// narrowed is ctx under a's policy, a scope level inside the program's.
func (s *Service) narrowed(ctx context.Context, a agents.Assistant) context.Context {
	if len(a.Policy) == 0 {
		return ctx
	}
	s.levels.mu.Lock()
	l, ok := s.levels.by[a.Name]
	if !ok {
		l = policy.NewLevel(a.Policy...)
		if s.levels.by == nil {
			s.levels.by = map[string]*policy.Level{}
		}
		s.levels.by[a.Name] = l
	}
	s.levels.mu.Unlock()
	return l.Narrow(ctx)
}

// ruled is ctx under the program's scope (Config.Scope: its rules,
// middleware, values and model) with a's rules inside it: where every
// turn of a starts.
func (s *Service) ruled(ctx context.Context, a agents.Assistant) context.Context {
	if s.scope != nil {
		ctx = s.scope(ctx)
	}
	return s.narrowed(ctx, a)
}
