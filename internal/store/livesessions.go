package store

import "sync"

// liveSessions remembers the session ids Session found recorded and not
// rotated. Every request of a browser resolves its cookie through Session
// (package transport), and on SQLite a read of one row costs a parse, a
// read transaction and the pages the last commit changed again: some 15%
// of the server's CPU under the paced bench. Once an id is known to be
// live, only a rotation of that id changes what Session returns for it:
// the handoff window and the client matter only to an id that was rotated,
// and no statement removes a session that was not. So RotateSession
// forgets the id it rotates, and an id Session read while a rotation
// happened is not remembered from that read (gen).
//
// It serves SQLite only, where every rotation is this process's own (one
// process at a time holds the database). On PostgreSQL another node may
// rotate an id, so nothing is remembered there: the DB's liveSessions is
// nil, and each method of a nil one does nothing.
type liveSessions struct {
	mu  sync.Mutex
	gen uint64 // moves at each rotation
	ids map[string]struct{}
}

// liveSessionsRemembered bounds what liveSessions holds: once it knows this
// many ids it forgets them all, which costs each live one a read again.
const liveSessionsRemembered = 10_000

// known reports whether id is remembered live, and if not, the generation
// to hand remember once id is read.
func (l *liveSessions) known(id string) (ok bool, gen uint64) {
	if l == nil {
		return false, 0
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	_, ok = l.ids[id]
	return ok, l.gen
}

// remember records id as live, read at generation gen; a read a rotation
// may have overtaken (the generation moved since) is not recorded.
func (l *liveSessions) remember(id string, gen uint64) {
	if l == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if gen != l.gen {
		return
	}
	if l.ids == nil || len(l.ids) >= liveSessionsRemembered {
		l.ids = map[string]struct{}{}
	}
	l.ids[id] = struct{}{}
}

// forget drops id, which a rotation has just moved on (or tried to), and
// moves the generation so that no read from before the rotation records it
// again.
func (l *liveSessions) forget(id string) {
	if l == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	delete(l.ids, id)
	l.gen++
}
