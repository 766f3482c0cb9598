package chat

import (
	"context"
	"maps"
	"slices"
	"time"

	"github.com/sweatpants-go/sweatpants/internal/feed"
	"github.com/sweatpants-go/sweatpants/internal/pageview"
	"github.com/sweatpants-go/sweatpants/internal/tree"
)

// Following a conversation (package feed): the conversation keeps the hub
// of its followers in its page, and is their Source through source. The
// calls page (package calls), which reads the record, follows a whole
// session through Sessions (package sessionfeed).

// Follow starts following a conversation the session owns, handing the
// follower what w asks for from now on (and, with w.Nodes, the recorded
// nodes after w.After first). Errors: NotFound.
func (s *Service) Follow(ctx context.Context, session, id string, w feed.Want) (*feed.Follower, error) {
	f, _, err := s.follow(ctx, session, id, w)
	return f, err
}

// Subscribe follows a conversation for an open page: the view it starts
// from, and then every change of it (Want.Page). Errors: NotFound.
func (s *Service) Subscribe(ctx context.Context, session, id string) (*feed.Follower, pageview.View, error) {
	return s.follow(ctx, session, id, feed.Want{Page: true})
}

// follow registers a follower and returns it with the view it starts from,
// both under the conversation's lock.
func (s *Service) follow(ctx context.Context, session, id string, w feed.Want) (*feed.Follower, pageview.View, error) {
	c, err := s.acquire(ctx, session, id)
	if err != nil {
		return nil, pageview.View{}, err
	}
	if w.Page {
		c.lock() // a held answer is written first, so the page shows it
	} else {
		c.mu.Lock() // an open reader never costs a turn a commit of its own
	}
	defer c.mu.Unlock()
	var recorded []tree.Node
	if w.Nodes {
		recorded = c.idx.After(w.After)
	}
	f, v := c.page.hub.FollowLocked(source{c}, w, recorded)
	return f, v, nil
}

// source is a conversation as its followers see it.
type source struct{ c *conversation }

func (s source) Lock()                         { s.c.mu.Lock() }
func (s source) Unlock()                       { s.c.mu.Unlock() }
func (s source) ViewLocked() pageview.View     { return s.c.page.view() }
func (s source) NoticeLocked() pageview.Notice { return s.c.page.notice }
func (s source) Release()                      { s.c.svc.release(s.c) }
func (s source) Retention() time.Duration      { return s.c.svc.retention }
func (s source) Reflog(ctx context.Context) ([]tree.RefEntry, error) {
	return s.c.svc.store.Reflog(ctx, s.c.conv.ID)
}

func (s source) LookLocked() feed.Live {
	c := s.c
	l := feed.Live{Conversation: c.conv, Index: c.idx, Path: c.path, Turn: c.page.turnStateLocked(), Notice: c.page.notice}
	if t := c.current; t != nil && c.page.draftLocked() != "" {
		l.Reply = feed.Draft{Run: t.id, Text: c.page.draftLocked()}
	}
	for _, id := range slices.Sorted(maps.Keys(c.sides)) {
		if d := c.sides[id].draftLocked(); d != "" {
			l.Asides = append(l.Asides, feed.Draft{Run: id, Text: d})
		}
	}
	return l
}
