package chat

import "github.com/sweatpants-go/sweatpants/internal/sessionfeed"

// Sessions is the hub of the session followers (package sessionfeed): a
// reader of the record follows a whole session there, and a program
// relays it to the other nodes of a cluster.
func (s *Service) Sessions() *sessionfeed.Hub { return &s.sessions }
