package chat

// Claimed tells the service that the conversations, always rules and files
// of the browser session prev were moved to owner in the database (a
// browser signed in, and its account claimed what it had made before): the
// conversations running here, the kept always rules and the session's feed
// follow them, as they follow a rotation.
func (s *Service) Claimed(prev, owner string) {
	if prev == "" || prev == owner {
		return
	}
	s.always.Forget(prev, owner)
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, c := range s.live {
		if c.owner == prev {
			c.owner = owner
		}
	}
	s.sessions.Rotated(prev, owner)
}
