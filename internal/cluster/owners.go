package cluster

import (
	"sync"
	"time"
)

// ownersFor is how long a node remembers which other node holds a
// conversation it forwarded a request for. A conversation changes hands
// by a release or a takeover, each announced on the bus, which forgets
// it, and a node that may have missed announcements forgets all; so the
// memory need not be short, and a browser answering at a person's pace
// (every few seconds) finds it still there. At one second, most answers
// landing on another node paid the statement again (issue 42).
const ownersFor = time.Minute

// ownersKept bounds the conversations remembered; past it, all are
// forgotten at once (a forwarded request then costs its statement again).
const ownersKept = 10_000

// owners remembers, for a while, which live node holds a conversation,
// so that the next request forwarded there costs no statement: taking a
// lease another live node holds asks PostgreSQL whether that node is alive
// (pg_locks), which holds every backend that takes a lock meanwhile, and
// a browser sends its requests for one conversation in bursts. A release
// or a takeover heard on the bus forgets the conversation, and so does an
// owner that does not answer, and a node that lost its connection to the
// bus forgets all; a request forwarded on a stale memory is served by the
// node it reaches, which takes the conversation if it can.
type owners struct {
	mu   sync.Mutex
	seen map[string]ownerSeen
}

type ownerSeen struct {
	away *Elsewhere
	at   time.Time
}

// get returns the node remembered as holding c, nil when none is, or not
// for the last ownersFor.
func (o *owners) get(c string, now time.Time) *Elsewhere {
	o.mu.Lock()
	defer o.mu.Unlock()
	s, ok := o.seen[c]
	if !ok {
		return nil
	}
	if now.Sub(s.at) > ownersFor {
		delete(o.seen, c)
		return nil
	}
	return s.away
}

// put remembers that away's node holds its conversation.
func (o *owners) put(away *Elsewhere, now time.Time) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.seen == nil || len(o.seen) >= ownersKept {
		o.seen = map[string]ownerSeen{}
	}
	o.seen[away.Conversation] = ownerSeen{away: away, at: now}
}

// forgetAll forgets every owner: what this node heard may have missed a
// move.
func (o *owners) forgetAll() {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.seen = nil
}

// forget forgets who holds c.
func (o *owners) forget(c string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	delete(o.seen, c)
}
