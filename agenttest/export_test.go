package agenttest

import "github.com/sweatpants-go/sweatpants/internal/chat"

// ServiceOf returns the chat service s serves, for this package's tests
// that look at what the service recorded: a test of an assistant reads
// its conversation through Conversation, so the kit exports no engine.
func ServiceOf(s *Server) *chat.Service { return s.svc }
