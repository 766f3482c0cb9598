package mcp

import (
	"context"
	"fmt"
	"iter"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sweatpants-go/sweatpants/internal/apperr"
)

// EventLog is where an EventStore keeps the streams' events: the database
// (store.DB). A stream is named by its session's id and its own, as the SDK
// gives them; its events are numbered from 0 in the order appended.
type EventLog interface {
	// AppendEvent appends data to the stream, then drops its oldest events
	// until they hold at most keep bytes, the new one always kept. With
	// opening, the stream starts with it, dropping what a stream of that
	// name held before; without, a stream not started is NotFound
	// (apperr).
	AppendEvent(ctx context.Context, session, stream string, data []byte, keep int, opening bool) error
	// EventsAfter returns the stream's events after index, and the index
	// of the oldest it keeps. A stream not open is NotFound (apperr).
	EventsAfter(ctx context.Context, session, stream string, index int) (first int, data [][]byte, err error)
	// EventStreams returns the names of the session's streams.
	EventStreams(ctx context.Context, session string) ([]string, error)
	// ForgetEventSession drops the session's streams.
	ForgetEventSession(ctx context.Context, session string) error
	// ForgetIdleEventSessions drops the streams of the sessions none of
	// whose streams was appended to since before.
	ForgetIdleEventSessions(ctx context.Context, before time.Time) (int, error)
}

// The bounds on what an EventStore keeps. A client resumes a stream it
// lost moments ago (the SDK's client tries five times, within about
// fifteen seconds) or after its server restarted; it needs the stream's
// recent events, not an hour of a long call's progress. So each stream
// keeps its newest events up to DefaultStreamBytes, and a session idle for
// IdleSession is forgotten whole, as if closed: a client that went away
// without closing its session leaves nothing behind for long. The bound
// is per stream, not one for all (as the SDK's in-memory store has), so
// that one chatty call never takes what another session's client is
// about to ask for.
const (
	DefaultStreamBytes = 1 << 20
	IdleSession        = 24 * time.Hour
	// sweepEvery is how often, at most, idle sessions are looked for.
	sweepEvery = 10 * time.Minute
)

// EventStore is the SDK's event store (sdk.EventStore) kept in an
// EventLog, so that a client whose stream broke resumes it with
// Last-Event-ID and gets every event it missed, even after a restart of
// the server: the events are in the database, not in memory. Its methods
// are safe for concurrent use.
type EventStore struct {
	log  EventLog
	now  func() time.Time
	keep int

	mu    sync.Mutex
	swept time.Time // when idle sessions were last looked for
	// opened holds the streams opened that have no event yet: a
	// session's standalone stream stays here until its first event or
	// the session's close, as the SDK keeps the session itself.
	opened map[streamKey]bool
}

// primeMark starts the stored priming event of a tool call's stream,
// which holds the call's request after it; no JSON-RPC message starts so.
const primeMark = 0

// callKey is the context key of the tools/call request whose stream a
// POST opens (withCall).
type callKey struct{}

// withCall marks ctx, a POST's, as that of the tools/call request body: the
// priming event of the stream it opens keeps it.
func withCall(ctx context.Context, body []byte) context.Context {
	return context.WithValue(ctx, callKey{}, body)
}

// streamKey names a stream of a session.
type streamKey struct{ session, stream string }

// EventOptions tune an EventStore; the zero value is the defaults.
type EventOptions struct {
	// StreamBytes bounds each stream's events (0: DefaultStreamBytes).
	StreamBytes int
	// Now is the clock by which sessions are idle (nil: time.Now).
	Now func() time.Time
}

// NewEventStore returns an event store keeping the events in log.
func NewEventStore(log EventLog, opts EventOptions) *EventStore {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.StreamBytes <= 0 {
		opts.StreamBytes = DefaultStreamBytes
	}
	return &EventStore{log: log, now: opts.Now, keep: opts.StreamBytes, opened: map[streamKey]bool{}}
}

var _ sdk.EventStore = (*EventStore)(nil)

// Open starts the session's stream. It writes nothing: the stream is
// written with its first event, in the same commit (a call's stream gets
// its priming event at once), and until then it is an empty stream of
// this process, which is all a restarted server could replay of it. Now
// and then Open first forgets the sessions idle for longer than
// IdleSession.
func (s *EventStore) Open(ctx context.Context, session, stream string) error {
	if err := s.sweep(ctx); err != nil {
		return err
	}
	s.mu.Lock()
	s.opened[streamKey{session, stream}] = true
	s.mu.Unlock()
	return nil
}

// sweep forgets the idle sessions, at most once every sweepEvery.
func (s *EventStore) sweep(ctx context.Context) error {
	now := s.now()
	s.mu.Lock()
	due := now.Sub(s.swept) >= sweepEvery
	if due {
		s.swept = now
	}
	s.mu.Unlock()
	if !due {
		return nil
	}
	if _, err := s.log.ForgetIdleEventSessions(ctx, now.Add(-IdleSession)); err != nil {
		return fmt.Errorf("mcp: forget idle sessions' events: %w", err)
	}
	return nil
}

// Append appends data to the session's stream. A stream that is not open
// (it was forgotten) is an error: its event could not be replayed under
// the id the client is given. The priming event of a tool call's stream
// (no data, on a request marked by withCall) keeps the call's request, so
// that a server restarted knows what the stream answers (see orphan);
// After replays it as the empty event it was.
func (s *EventStore) Append(ctx context.Context, session, stream string, data []byte) error {
	k := streamKey{session, stream}
	s.mu.Lock()
	opening := s.opened[k]
	delete(s.opened, k)
	s.mu.Unlock()
	if call, ok := ctx.Value(callKey{}).([]byte); ok && opening && len(data) == 0 {
		data = append([]byte{primeMark}, call...)
	}
	err := s.log.AppendEvent(ctx, session, stream, data, s.keep, opening)
	if err != nil && opening {
		s.mu.Lock()
		s.opened[k] = true // the stream is still to be started
		s.mu.Unlock()
	}
	return err
}

// pending reports whether the stream was opened and has no event yet.
func (s *EventStore) pending(session, stream string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.opened[streamKey{session, stream}]
}

// After yields the events of the session's stream after index. It yields
// only an error, and nothing else, when the stream is unknown (never
// opened, or forgotten with its session) or when an event after index was
// dropped (sdk.ErrEventsPurged): a client must never take a partial replay
// for the whole.
func (s *EventStore) After(ctx context.Context, session, stream string, index int) iter.Seq2[[]byte, error] {
	return func(yield func([]byte, error) bool) {
		if s.pending(session, stream) {
			// Opened, nothing in it yet: what a stream of that name held
			// before (a session connected again under its id) is not its.
			return
		}
		first, data, err := s.log.EventsAfter(ctx, session, stream, index)
		switch {
		case apperr.CodeOf(err) == apperr.NotFound:
			yield(nil, fmt.Errorf("mcp: no stream %q in session %q to replay", stream, session))
			return
		case err != nil:
			yield(nil, fmt.Errorf("mcp: replay stream %q of session %q: %w", stream, session, err))
			return
		case index+1 < first:
			yield(nil, fmt.Errorf("mcp: replay stream %q of session %q after %d, kept from %d: %w",
				stream, session, index, first, sdk.ErrEventsPurged))
			return
		}
		for _, d := range data {
			if len(d) > 0 && d[0] == primeMark {
				d = []byte{}
			}
			if !yield(d, nil) {
				return
			}
		}
	}
}

// SessionClosed forgets the session's streams and their events.
func (s *EventStore) SessionClosed(ctx context.Context, session string) error {
	s.mu.Lock()
	for k := range s.opened {
		if k.session == session {
			delete(s.opened, k)
		}
	}
	s.mu.Unlock()
	return s.log.ForgetEventSession(ctx, session)
}
