package chat

import (
	"context"

	"github.com/sweatpants-go/sweatpants/internal/always"
)

// Always rules. A user who answers an approval "Always allow" lets the
// agent's tool run without asking in every conversation of their session,
// until they revoke it on the settings page. The rules are the store's; the
// service keeps each session's in memory once read, since every tool call a
// turn makes looks them up, and forgets them whenever they change.

// AlwaysStore is what the service needs of the database for the always
// rules. RevokeAlways returns an apperr NotFound for a rule the session
// does not have; AllowAlways returns the rule a tool has already, if any.
type AlwaysStore interface {
	AlwaysAllowed(ctx context.Context, session string) ([]always.Rule, error)
	AllowAlways(ctx context.Context, session, agent, tool string) (always.Rule, error)
	RevokeAlways(ctx context.Context, session string, id int64) error
}

// AlwaysAllowed lists the tools the session's user always allows, oldest
// first, for the settings page.
func (s *Service) AlwaysAllowed(ctx context.Context, session string) ([]always.Rule, error) {
	return s.store.AlwaysAllowed(ctx, session)
}

// RevokeAlways revokes the session's always rule id: from the next call on,
// its tool asks again (a call being approved or running goes on). NotFound
// for a rule the session does not have.
func (s *Service) RevokeAlways(ctx context.Context, session string, id int64) error {
	defer s.always.Forget(session)
	return s.store.RevokeAlways(ctx, session, id)
}

// allowAlways keeps the user's "Always allow" of agent's tool for session.
func (s *Service) allowAlways(ctx context.Context, session, agent, tool string) error {
	defer s.always.Forget(session)
	_, err := s.store.AllowAlways(ctx, session, agent, tool)
	return err
}

// alwaysAllowing returns session's always rule of agent's tool, if it has
// one.
func (s *Service) alwaysAllowing(ctx context.Context, session, agent, tool string) (always.Rule, bool, error) {
	rules, err := s.always.Of(ctx, session, s.store.AlwaysAllowed)
	if err != nil {
		return always.Rule{}, false, err
	}
	for _, r := range rules {
		if r.Agent == agent && r.Tool == tool {
			return r, true, nil
		}
	}
	return always.Rule{}, false, nil
}
