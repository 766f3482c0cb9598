package chat

import (
	"context"

	"github.com/sweatpants-go/sweatpants/internal/inbound"
)

// The methods a frontend implements (package protocol). A page says, as it
// loads, which methods its modules implement; an agent may ask before it
// calls one (protocol.Supported), and the answer is recorded, so that a
// replayed turn takes the path the live one took. A method the page does
// not implement is answered unsupported by the page itself, at once.

// Implements records that a frontend of the conversation implements the
// methods named, beside those its other pages said. Errors: Invalid as
// inbound.CheckMethods says; NotFound.
func (s *Service) Implements(ctx context.Context, session, id string, methods []string) error {
	if err := inbound.CheckMethods(methods); err != nil {
		return err
	}
	return s.holding(ctx, session, id, func(c *conversation) error {
		c.mu.Lock()
		defer c.mu.Unlock()
		if c.implements == nil {
			c.implements = map[string]bool{}
		}
		for _, m := range methods {
			c.implements[m] = true
		}
		return nil
	})
}

// A conversation forgets what its frontends implement when it leaves
// memory; a page that opens it again says so again.

// implemented is the core of protocol.Supported: whether the conversation's
// frontends implement method, true when none said what they implement.
func (t *turn) implemented(ctx context.Context, method string) (bool, error) {
	return recordValue(t, ctx, "implemented "+method, func() bool {
		c := t.conv
		c.mu.Lock()
		defer c.mu.Unlock()
		return c.implements == nil || c.implements[method]
	})
}
