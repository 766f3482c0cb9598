package transport

import (
	"context"
	"net/http"
	"time"
)

// Slow readers. A stream's events are written as they come; a client that
// stops reading leaves a write blocked, holding what it was sending, and
// an inspector's whole tree can be megabytes. Two bounds keep that from
// adding up: a stream whose client takes nothing of it for StreamStall is
// dropped (its browser reconnects, and a reconnect draws the page whole
// again, as it is then), and the whole drawings of inspectors are made
// a few at a time (drawSlots), so that however many streams wait on
// clients that do not read, memory holds at most that many drawings.

// DefaultStreamStall is how long a stream may write without its client
// taking a byte before the stream is dropped.
const DefaultStreamStall = 30 * time.Second

// DefaultWholeDraws is how many whole drawings of a tree inspector the
// server makes and sends at once.
const DefaultWholeDraws = 4

// stallWriter is a response writer that gives every write to the
// connection a deadline of stall from its start: a write the client takes
// nothing of in that time fails, and the stream ends. The deadline is
// renewed at each write, so a slow client that keeps reading is served.
type stallWriter struct {
	http.ResponseWriter
	rc    *http.ResponseController
	stall time.Duration
}

func newStallWriter(w http.ResponseWriter, stall time.Duration) *stallWriter {
	return &stallWriter{ResponseWriter: w, rc: http.NewResponseController(w), stall: stall}
}

func (w *stallWriter) Write(p []byte) (int, error) {
	w.rc.SetWriteDeadline(time.Now().Add(w.stall)) // a writer without deadlines has none to renew
	return w.ResponseWriter.Write(p)
}

// Flush sends what is buffered, under the same deadline: the buffered
// bytes go to the connection here.
func (w *stallWriter) Flush() {
	w.rc.SetWriteDeadline(time.Now().Add(w.stall))
	w.rc.Flush()
}

func (w *stallWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// drawSlots bounds the whole drawings made and sent at once.
type drawSlots chan struct{}

// take waits for a slot; release gives it back.
func (s drawSlots) take(ctx context.Context) (release func(), err error) {
	select {
	case s <- struct{}{}:
		return func() { <-s }, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}
