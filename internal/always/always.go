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

// Store is where the rules are kept (the database). RevokeAlways returns an
// apperr NotFound for a rule the session does not have; AllowAlways returns
// the rule a tool has already, if any.
type Store interface {
	AlwaysAllowed(ctx context.Context, session string) ([]Rule, error)
	AllowAlways(ctx context.Context, session, agent, tool string) (Rule, error)
	RevokeAlways(ctx context.Context, session string, id int64) error
}

// Rules are the sessions' rules: kept in store, each session's read once
// into a Cache, and forgotten there whenever they change.
type Rules struct {
	store Store
	cache Cache
}

// NewRules keeps the rules in store.
func NewRules(store Store) *Rules { return &Rules{store: store} }

// Of lists the tools the session's user always allows, oldest first, for
// the settings page.
func (r *Rules) Of(ctx context.Context, session string) ([]Rule, error) {
	return r.store.AlwaysAllowed(ctx, session)
}

// Revoke revokes the session's rule id: from the next call on, its tool
// asks again (a call being approved or running goes on). NotFound for a
// rule the session does not have.
func (r *Rules) Revoke(ctx context.Context, session string, id int64) error {
	defer r.cache.Forget(session)
	return r.store.RevokeAlways(ctx, session, id)
}

// Allow keeps the user's "Always allow" of agent's tool for session.
func (r *Rules) Allow(ctx context.Context, session, agent, tool string) error {
	defer r.cache.Forget(session)
	_, err := r.store.AllowAlways(ctx, session, agent, tool)
	return err
}

// Allowing returns session's rule of agent's tool, if it has one.
func (r *Rules) Allowing(ctx context.Context, session, agent, tool string) (Rule, bool, error) {
	rules, err := r.cache.Of(ctx, session, r.store.AlwaysAllowed)
	if err != nil {
		return Rule{}, false, err
	}
	for _, rule := range rules {
		if rule.Agent == agent && rule.Tool == tool {
			return rule, true, nil
		}
	}
	return Rule{}, false, nil
}

// Forget drops what is kept of the sessions' rules, which changed (their
// conversations moved to another session, say).
func (r *Rules) Forget(sessions ...string) { r.cache.Forget(sessions...) }
