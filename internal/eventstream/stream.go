package eventstream

import (
	"context"

	"github.com/sweatpants-go/sweatpants/internal/feed"
	"github.com/sweatpants-go/sweatpants/internal/tree"
)

// Following is what the event stream needs of the chat service.
type Following interface {
	// Follow follows a conversation the session owns. Errors: NotFound.
	Follow(ctx context.Context, session, id string, w feed.Want) (*feed.Follower, error)
}

// Stream follows a conversation's events for one client.
type Stream struct {
	f    *feed.Follower
	runs *runs
}

// Open opens the event stream of a conversation the session owns. It
// starts after the event lastID names (the id of the last event the client
// received, its Last-Event-ID), or from the first event when lastID is "".
// Close it when the client goes away. Errors: NotFound; Invalid for a
// lastID that is not an id this stream gives, or one the conversation has
// not reached.
func Open(ctx context.Context, svc Following, session, id, lastID string) (*Stream, error) {
	from, err := parsePosition(lastID)
	if err != nil {
		return nil, err
	}
	// The follower is handed the record after the position and then every
	// node recorded, with no gap and no overlap. A position part-way
	// through a node's events starts at that node.
	after := from.node
	if from.part > 0 {
		after--
	}
	f, err := svc.Follow(ctx, session, id, feed.Want{Nodes: true, After: after})
	if err != nil {
		return nil, err
	}
	fd := newRuns(from)
	f.Look(func(l feed.Live) {
		fd.pending = l.Nodes
		err = from.check(l.Index, lastID)
	})
	if err != nil {
		f.Close()
		return nil, err
	}
	return &Stream{f: f, runs: fd}, nil
}

// Close ends the stream.
func (s *Stream) Close() { s.f.Close() }

// Next waits for events and returns them in order.
func (s *Stream) Next(ctx context.Context) ([]Event, error) {
	for {
		evs, more := s.take()
		if len(evs) > 0 {
			return evs, nil
		}
		if more {
			continue
		}
		if _, err := s.f.Next(ctx); err != nil {
			return nil, err
		}
	}
}

// maxBatch bounds the nodes turned into events under the conversation's
// lock at a time, so that a client reading a long record from the start
// does not keep the turn waiting.
const maxBatch = 256

// take returns the events there are now, and whether more are waiting.
func (s *Stream) take() (evs []Event, more bool) {
	f := s.runs
	s.f.Look(func(l feed.Live) {
		f.pending = append(f.pending, l.Nodes...)
		if l.Rescan {
			f.pending, f.rescan = nil, true
		}
		if f.rescan {
			f.rescan, f.pending = false, after(l.Index, f.pos)
		}
		n := min(len(f.pending), maxBatch)
		for _, node := range f.pending[:n] {
			evs = f.eventsOf(l.Index, node, evs)
		}
		f.pending = f.pending[n:]
		if len(f.pending) > 0 {
			more = true
			return
		}
		f.pending = nil
		// The reply streaming now follows every node recorded, and so do
		// the side questions' replies, in the order they were asked.
		if d := l.Reply; d.Text != "" {
			if off, text, ok := f.held.take(d.Run, d.Text); ok {
				evs = append(evs, Event{ID: f.id(), Type: EventTokenDelta, Data: TokenDelta{Run: d.Run, Offset: off, Text: text}})
			}
		}
		for _, d := range l.Asides {
			if off, text, ok := f.side(d.Run).take(d.Run, d.Text); ok {
				evs = append(evs, Event{ID: f.id(), Type: EventTokenDelta, Data: TokenDelta{Run: d.Run, Aside: true, Offset: off, Text: text}})
			}
		}
	})
	return evs, more
}

// after returns the nodes of x from position p on, in id order: those
// after p's node, and p's node itself when only part of its events were
// sent.
func after(x *tree.Index, p position) []tree.Node {
	if p.part > 0 {
		return x.After(p.node - 1)
	}
	return x.After(p.node)
}
