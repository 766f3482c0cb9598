package transport

import (
	"sync"

	"github.com/sweatpants-go/sweatpants/internal/apperr"
)

// holdLimit bounds what requests hold while they last — open streams,
// uploads being read — per session, per client address and in all. Each
// such request holds a connection, so a file descriptor: without bounds one
// client holding many would use them up and lock everyone else out.
type holdLimit struct {
	perSession, perClient, total int
	words                        holdWords

	mu        sync.Mutex
	bySession map[string]int
	byClient  map[string]int
	open      int
}

// holdWords are a holdLimit's refusals: over a session's share and a
// client's (formats taking the share), and over the server's total.
type holdWords struct {
	session, client, total string
}

func newHoldLimit(perSession, perClient, total int, words holdWords) *holdLimit {
	return &holdLimit{perSession: perSession, perClient: perClient, total: total, words: words,
		bySession: map[string]int{}, byClient: map[string]int{}}
}

// acquire counts one more request of session from client, or refuses it:
// one over its session's or its client's share is TooMany; one over the
// server's total is Unavailable, to be tried again later. A request with
// no session ("") is bounded by its client's share and the total alone.
// The caller calls release when the request ends.
func (l *holdLimit) acquire(session, client string) (release func(), err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	switch {
	case session != "" && l.bySession[session] >= l.perSession:
		return nil, apperr.Errorf(apperr.TooMany, l.words.session, l.perSession)
	case l.byClient[client] >= l.perClient:
		return nil, apperr.Errorf(apperr.TooMany, l.words.client, l.perClient)
	case l.open >= l.total:
		return nil, apperr.Errorf(apperr.Unavailable, "%s", l.words.total)
	}
	if session != "" {
		l.bySession[session]++
	}
	l.byClient[client]++
	l.open++
	return func() {
		l.mu.Lock()
		defer l.mu.Unlock()
		l.open--
		if session != "" {
			if l.bySession[session]--; l.bySession[session] == 0 {
				delete(l.bySession, session)
			}
		}
		if l.byClient[client]--; l.byClient[client] == 0 {
			delete(l.byClient, client)
		}
	}, nil
}
