package chat

import (
	"context"

	"github.com/sweatpants-go/sweatpants/internal/always"
)

// Always rules. A user who answers an approval "Always allow" lets the
// agent's tool run without asking in every conversation of their session,
// until they revoke it on the settings page (package always keeps them).

// AlwaysAllowed lists the tools the session's user always allows, oldest
// first, for the settings page.
func (s *Service) AlwaysAllowed(ctx context.Context, session string) ([]always.Rule, error) {
	return s.always.Of(ctx, session)
}

// RevokeAlways revokes the session's always rule id. NotFound for a rule
// the session does not have.
func (s *Service) RevokeAlways(ctx context.Context, session string, id int64) error {
	return s.always.Revoke(ctx, session, id)
}
