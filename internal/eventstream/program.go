package eventstream

import (
	"context"
	"math"

	"github.com/sweatpants-go/sweatpants/internal/feed"
	"github.com/sweatpants-go/sweatpants/internal/tree"
)

// A program that drives a conversation (a tool call over MCP, the test
// kit's served conversation) follows one run, not the conversation from
// its first node: it opens the stream where its run starts, so that what
// it reads costs the same however long the conversation grew. It reads the
// same typed events a client of GET /c/:id/events does.

// OpenNew opens the event stream of a conversation the session owns at its
// end: the stream gives the events of what is recorded from now on, such
// as the run of a message the caller is about to send. Errors: NotFound.
func OpenNew(ctx context.Context, svc Following, session, id string) (*Stream, error) {
	return openAt(ctx, svc, session, id, func(l feed.Live) int64 { return l.Index.Newest() })
}

// OpenRun opens the event stream of a conversation the session owns at the
// start of its newest run on the current branch: the stream gives that
// run's events from its run.started on, and then what is recorded after,
// for a program that takes over a run already going (after a restart, or
// a retry that answers its questions). A conversation with no run yet
// starts at its end, as OpenNew does. Errors: NotFound.
func OpenRun(ctx context.Context, svc Following, session, id string) (*Stream, error) {
	return openAt(ctx, svc, session, id, func(l feed.Live) int64 {
		for i := len(l.Path) - 1; i >= 0; i-- {
			if l.Path[i].Kind == tree.UserMessage {
				return l.Path[i].ID - 1
			}
		}
		return l.Index.Newest()
	})
}

// openAt opens the stream after the node at returns, chosen under the
// conversation's lock. The follower is registered first, wanting no node of
// the record, and the nodes after that position are read from the index at
// the first look: they include those recorded since the registration, so
// nothing is missed and nothing handed twice.
func openAt(ctx context.Context, svc Following, session, id string, at func(feed.Live) int64) (*Stream, error) {
	f, err := svc.Follow(ctx, session, id, feed.Want{Nodes: true, After: math.MaxInt64})
	if err != nil {
		return nil, err
	}
	var fd *runs
	f.Look(func(l feed.Live) {
		from := at(l)
		fd = newRuns(position{node: from})
		fd.pending = l.Index.After(from)
		fd.seed(l.Path)
	})
	return &Stream{f: f, runs: fd}, nil
}

// Ready returns the events there are now, without waiting: none when the
// conversation recorded nothing new since the last look.
func (s *Stream) Ready() []Event {
	var evs []Event
	for {
		got, more := s.take()
		evs = append(evs, got...)
		if !more {
			return evs
		}
	}
}

// Conversation returns the conversation the stream follows, as it is now:
// its title, agent and times. The nodes recorded meanwhile stay for Next.
func (s *Stream) Conversation() tree.Conversation {
	var c tree.Conversation
	s.f.Look(func(l feed.Live) {
		c = l.Conversation
		s.runs.pending = append(s.runs.pending, l.Nodes...)
		if l.Rescan {
			s.runs.pending, s.runs.rescan = nil, true
		}
	})
	return c
}

// seed tells the feed the runs of the newest nodes on the conversation's
// branch, path, when no side question was ever asked on it: each is then
// of the flow's run its nearest user message starts. A stream opened at a
// run then places the run's nodes in a step or two, where it would climb
// the whole branch to its root to learn it is not under a side question
// (runOf), which costs as much as the conversation is long.
func (f *runs) seed(path tree.Path) {
	for _, n := range path {
		if n.Kind == tree.SideQuestion {
			return // runOf finds the runs
		}
	}
	// From the user message before the newest one on: the newest run's
	// nodes, and where its message hangs.
	from, users := 0, 0
	for i := len(path) - 1; i >= 0 && users < 2; i-- {
		if path[i].Kind == tree.UserMessage {
			from, users = i, users+1
		}
	}
	var run int64
	for _, n := range path[from:] {
		if n.Kind == tree.UserMessage {
			run = n.ID
		}
		f.runs[n.ID] = runInfo{run: run}
	}
}
