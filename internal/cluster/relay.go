package cluster

import (
	"bytes"
	"mime"
	"net/http"
)

// relay is the browser's response while its request is forwarded, to one
// owner after another when the conversation moves. The first status and
// headers go out; those of a later owner go nowhere. A stream of
// server-sent events is passed on event by event, an event begun but not
// ended held back, so that when one owner's stream is cut the next
// owner's, resumed from the last event's id (Last-Event-ID), follows it
// without a torn event between them.
type relay struct {
	w       http.ResponseWriter
	started bool        // the status and headers went out
	events  bool        // the response is a stream of server-sent events
	scratch http.Header // a later owner's headers
	pending []byte      // an event begun and not ended
	lastID  string      // the id of the last event passed on, "" for none
	passed  int         // events passed on in this owner's turn
}

// next starts another owner's turn.
func (rl *relay) next() {
	rl.pending, rl.passed = nil, 0
	if rl.started {
		rl.scratch = http.Header{}
	}
}

// resumable says a cut response can go on with another owner's: an event
// stream, passed on whole events only.
func (rl *relay) resumable() bool { return rl.started && rl.events }

func (rl *relay) Header() http.Header {
	if rl.started {
		return rl.scratch
	}
	return rl.w.Header()
}

func (rl *relay) WriteHeader(code int) {
	if rl.started {
		return
	}
	if code < 200 { // an informational response; the real one follows
		rl.w.WriteHeader(code)
		return
	}
	mt, _, _ := mime.ParseMediaType(rl.w.Header().Get("Content-Type"))
	rl.started, rl.events = true, mt == "text/event-stream"
	rl.scratch = http.Header{}
	rl.w.WriteHeader(code)
}

func (rl *relay) Write(p []byte) (int, error) {
	if !rl.started {
		rl.WriteHeader(http.StatusOK)
	}
	if !rl.events {
		return rl.w.Write(p)
	}
	rl.pending = append(rl.pending, p...)
	end := rl.ended()
	if end == 0 {
		return len(p), nil
	}
	if _, err := rl.w.Write(rl.pending[:end]); err != nil {
		return 0, err
	}
	rl.pending = append(rl.pending[:0], rl.pending[end:]...)
	return len(p), nil
}

// ended is how many bytes of pending make whole events, noting the last id
// among them. An event ends with an empty line; a line ends with "\n",
// or "\r\n".
func (rl *relay) ended() int {
	end, start := 0, 0
	var id []byte // the id the event under way names, if any
	for start < len(rl.pending) {
		i := bytes.IndexByte(rl.pending[start:], '\n')
		if i < 0 {
			break
		}
		line := bytes.TrimSuffix(rl.pending[start:start+i], []byte("\r"))
		start += i + 1
		if len(line) == 0 {
			end = start
			rl.passed++
			if id != nil {
				rl.lastID, id = string(id), nil
			}
			continue
		}
		// An id with a NUL is ignored, as a browser ignores it.
		if v, ok := bytes.CutPrefix(line, []byte("id:")); ok && bytes.IndexByte(v, 0) < 0 {
			id = bytes.TrimPrefix(v, []byte(" "))
		}
	}
	return end
}

// finish passes on what an owner's response ended with.
func (rl *relay) finish() {
	if len(rl.pending) > 0 {
		rl.w.Write(rl.pending)
		rl.pending = nil
	}
}

// Flush sends what was passed on.
func (rl *relay) Flush() {
	http.NewResponseController(rl.w).Flush()
}

// Unwrap lets a handler serving the request here reach the connection's
// deadlines.
func (rl *relay) Unwrap() http.ResponseWriter { return rl.w }
