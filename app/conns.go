package app

import (
	"net"
	"net/http"
	"sync"
	"time"
)

// idleReaper keeps idle keep-alive connections from crowding out new
// visitors. Each open connection costs a file descriptor; a client that
// opens many and leaves them idle could otherwise use up the process's
// descriptors and lock everyone out until the idle timeout. When more than
// max connections are open, the longest-idle ones are closed: an idle
// connection has no request in flight, so closing it loses nothing, and its
// browser opens a new one when it needs one. Streams are active, never idle,
// so they are not touched.
type idleReaper struct {
	max int

	mu     sync.Mutex
	open   int                    // connections counted, the reaped ones no longer
	idle   map[net.Conn]time.Time // since when each idle connection has been idle
	reaped map[net.Conn]bool      // closed here, not yet reported closed
}

func newIdleReaper(max int) *idleReaper {
	return &idleReaper{max: max, idle: map[net.Conn]time.Time{}, reaped: map[net.Conn]bool{}}
}

// track is the http.Server's ConnState hook.
func (r *idleReaper) track(c net.Conn, state http.ConnState) {
	var reap []net.Conn
	r.mu.Lock()
	switch state {
	case http.StateNew:
		r.open++
		reap = r.overLocked()
	case http.StateIdle:
		r.idle[c] = time.Now()
	case http.StateActive:
		delete(r.idle, c)
	case http.StateClosed, http.StateHijacked:
		if r.reaped[c] {
			delete(r.reaped, c)
		} else {
			r.open--
		}
		delete(r.idle, c)
	}
	r.mu.Unlock()
	for _, c := range reap {
		c.Close()
	}
}

// overLocked takes the longest-idle connections out of the count, enough
// to bring it back to max, and returns them to be closed; r.mu is held.
func (r *idleReaper) overLocked() []net.Conn {
	var out []net.Conn
	for r.open > r.max && len(r.idle) > 0 {
		var oldest net.Conn
		var since time.Time
		for c, t := range r.idle {
			if oldest == nil || t.Before(since) {
				oldest, since = c, t
			}
		}
		delete(r.idle, oldest)
		r.reaped[oldest] = true
		r.open--
		out = append(out, oldest)
	}
	return out
}
