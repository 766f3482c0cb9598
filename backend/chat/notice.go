package chat

// Notices. A command that went wrong where no better place shows it, or
// went well and says so, leaves a notice on every open page of the
// conversation until the next command.

// Notice shows a message on every open page of the conversation, for
// problems with a request that has no better place to be shown; "" clears
// the last one.
func (s *Service) Notice(session, id, message string) {
	s.notice(session, id, Notice{Text: message})
}

// Inform shows a message on every open page of the conversation that tells
// how a request went, when it went well.
func (s *Service) Inform(session, id, message string) {
	s.notice(session, id, Notice{Text: message, Info: true})
}

func (s *Service) notice(session, id string, n Notice) {
	s.mu.Lock()
	c := s.live[id]
	mine := c != nil && c.owner == session
	s.mu.Unlock()
	if !mine {
		return
	}
	c.lock()
	defer c.mu.Unlock()
	if n == c.notice {
		return // most commands clear a notice that is not there
	}
	c.notice = n
	c.broadcastLocked(Change{Notice: n})
}
