package policy

import "time"

// AlwaysRule is a choice the user made on an approval — "Always allow" —
// kept for their session: the agent's tool runs from then on without a
// card, in every conversation of the session, until the user revokes it
// (a settings page lists them). It is a remembered choice, so a finalDeny
// or a deny still beats it.
type AlwaysRule struct {
	ID      int64
	Session string
	Agent   string
	Tool    string
	Created time.Time
}
