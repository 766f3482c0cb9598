package transport

import (
	"context"

	"github.com/starfederation/datastar-go/datastar"

	"github.com/sweatpants-go/sweatpants/internal/feed"
	"github.com/sweatpants-go/sweatpants/internal/sessionfeed"
	"github.com/sweatpants-go/sweatpants/internal/web/templates"
)

// sessionsHub is the chat service's hub of session followers (the chat
// service has it; a Chat of a test may not).
type sessionsHub interface {
	Sessions() *sessionfeed.Hub
}

// liveList keeps a conversation page's list of conversations current: a
// conversation of the session that the page does not list yet (started in
// another browser of the account, or by an MCP call with the account's
// personal token) is added as it records, on any node of a cluster (the
// hub relays what other nodes record).
type liveList struct {
	f     *sessionfeed.Follower
	known map[string]bool // the conversations the page lists
}

// newLiveList follows session for a page that lists convs now.
func (s *Server) newLiveList(ctx context.Context, session string) (*liveList, error) {
	h, ok := s.chat.(sessionsHub)
	if !ok {
		return nil, nil
	}
	// Followed before the list is read, so that nothing started between
	// the two is missed.
	l := &liveList{f: h.Sessions().Follow(session), known: map[string]bool{}}
	convs, err := s.chat.Conversations(ctx, session)
	if err != nil {
		l.f.Close()
		return nil, err
	}
	for _, c := range convs {
		l.known[c.ID] = true
	}
	return l, nil
}

// next waits for the conversation's next update or the session's next
// record, whichever comes first. listed says the session recorded in some
// conversation (listEvents draws the list if one is new); the update is
// then empty.
func (p *pageSource) next(ctx context.Context) (u feed.Update, listed bool, err error) {
	if p.list == nil {
		u, err = p.sub.Next(ctx)
		return u, false, err
	}
	select {
	case <-p.sub.Ready():
		u, err = p.sub.Take()
		return u, false, err
	case <-p.list.f.Ready():
		return feed.Update{}, true, nil
	case <-ctx.Done():
		return feed.Update{}, false, ctx.Err()
	}
}

// listEvents draws the page's list again when the session recorded in a
// conversation the page does not list; nothing otherwise.
func (p *pageSource) listEvents(ctx context.Context) ([]event, error) {
	rec := p.list.f.Take()
	fresh := false
	for _, id := range rec.Recorded {
		fresh = fresh || !p.list.known[id]
	}
	if !fresh {
		return nil, nil
	}
	convs, err := p.s.chat.Conversations(ctx, rec.Session)
	if err != nil {
		return nil, err
	}
	clear(p.list.known)
	for _, c := range convs {
		p.list.known[c.ID] = true
	}
	return []event{func(sse *datastar.ServerSentEventGenerator) error {
		return patch(sse, templates.ConversationList(convs, p.conv, ""))
	}}, nil
}
