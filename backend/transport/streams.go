package transport

import (
	"sync"

	"github.com/sweatpants-go/sweatpants/backend/apperr"
)

// DefaultMaxStreams is how many streams (open pages of conversations and
// of their trees) one session may hold at once.
const DefaultMaxStreams = 32

// streamLimit bounds the streams each session holds open. Every open stream
// costs the server work on each change of its conversation; without a
// bound, one client opening many would slow everyone else down.
type streamLimit struct {
	max  int
	mu   sync.Mutex
	open map[string]int // session → streams open
}

func newStreamLimit(max int) *streamLimit {
	return &streamLimit{max: max, open: map[string]int{}}
}

// acquire counts one more stream of session, or refuses it with TooMany;
// the caller calls release when the stream ends.
func (l *streamLimit) acquire(session string) (release func(), err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.open[session] >= l.max {
		return nil, apperr.Errorf(apperr.TooMany,
			"This browser has %d pages of this app streaming already; close some tabs and reload.", l.max)
	}
	l.open[session]++
	return func() {
		l.mu.Lock()
		defer l.mu.Unlock()
		if l.open[session]--; l.open[session] == 0 {
			delete(l.open, session)
		}
	}, nil
}
