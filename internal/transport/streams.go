package transport

import (
	"github.com/labstack/echo/v4"

	"github.com/sweatpants-go/sweatpants/internal/apperr"
)

// Stream limits. Every open stream holds a connection, so a file
// descriptor, and costs the server work on each change of what it follows:
// without bounds, one client opening many would slow everyone else down,
// and enough of them would use up the descriptors and lock everyone out.
const (
	// DefaultMaxStreams is how many streams (open pages of conversations,
	// of their trees and of the calls page) one session may hold at once.
	DefaultMaxStreams = 32
	// DefaultMaxStreamsPerClient is how many one client address may hold,
	// whatever the sessions it holds them with: every visitor can start a
	// conversation and so have a session. A household or an office behind
	// one address shares it.
	DefaultMaxStreamsPerClient = 256
	// DefaultMaxStreamsTotal is how many the server holds in all when its
	// configuration does not say; package app derives it from the descriptor
	// limit, leaving room for new visitors' pages and the database.
	DefaultMaxStreamsTotal = 4096
)

// newStreamLimit bounds the streams held open per session, per client
// address and in all.
func newStreamLimit(perSession, perClient, total int) *holdLimit {
	return newHoldLimit(perSession, perClient, total, holdWords{
		session: "This browser has %d pages of this app streaming already; close some tabs and reload.",
		client:  "Your network has %d pages of this app streaming already; close some tabs and reload.",
		total:   "The server is following as many pages as it can; please reload in a little while.",
	})
}

// acquireStream counts the stream the request c opens (see acquire). A
// request with no session the server issued (none, a made-up one, one that
// moved on) owns nothing to follow, and holds no stream: its conversation is
// reported missing, exactly as another session's is.
func (s *Server) acquireStream(c echo.Context) (release func(), err error) {
	if sessionOf(c) == "" {
		if id := c.Param("id"); id != "" {
			return nil, apperr.Errorf(apperr.NotFound, "There is no conversation %q.", id)
		}
		return nil, apperr.Errorf(apperr.NotFound, "This browser has no conversations yet.")
	}
	return s.streams.acquire(sessionOf(c), s.clientAddr(c.Request()))
}
