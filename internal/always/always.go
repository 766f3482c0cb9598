// Package always keeps the tools a session's user always allows: the
// answer "Always allow" on an approval, which the engine checks on every
// tool call and a settings page lists and revokes. It is the engine's: an
// author's policy says what asks, and the user's standing answers to it
// are kept here.
package always

import (
	"context"
	"sync"
	"time"
)

// Rule is a choice the user made on an approval — "Always allow" —
// kept for their session: the agent's tool runs from then on without a
// card, in every conversation of the session, until the user revokes it
// (a settings page lists them). It is a remembered choice, so a finalDeny
// or a deny still beats it.
type Rule struct {
	ID      int64
	Session string
	Agent   string
	Tool    string
	Created time.Time
}

// Cache keeps the always rules of the sessions read so far: every
// tool call a turn makes looks them up, and they change only when a user
// allows or revokes one, or a session rotates. The zero value keeps none.
type Cache struct {
	mu     sync.Mutex
	by     map[string][]Rule // session → its rules
	change uint64            // counts the changes, so that a read that raced one is not kept
}

// Of returns session's rules, read through read when they are not kept.
func (a *Cache) Of(ctx context.Context, session string, read func(context.Context, string) ([]Rule, error)) ([]Rule, error) {
	a.mu.Lock()
	rules, ok := a.by[session]
	change := a.change
	a.mu.Unlock()
	if ok {
		return rules, nil
	}
	rules, err := read(ctx, session)
	if err != nil {
		return nil, err
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	// Rules read while they changed may be the old ones: used once, not
	// kept. A revoked rule is never taken from memory after the revoke.
	if a.change == change {
		if a.by == nil {
			a.by = map[string][]Rule{}
		}
		a.by[session] = rules
	}
	return rules, nil
}

// Forget drops what is kept of the sessions' rules, which changed.
func (a *Cache) Forget(sessions ...string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.change++
	for _, s := range sessions {
		delete(a.by, s)
	}
}
