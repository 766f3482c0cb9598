package calls

import (
	"context"

	"github.com/sweatpants-go/sweatpants/internal/apperr"
	"github.com/sweatpants-go/sweatpants/internal/sessionfeed"
)

// Watch follows the model calls of a session's conversations for one open
// calls page. It remembers what the page shows, so that a change is sent
// as the turns that changed, not the whole page again.
type Watch struct {
	svc    *Service
	filter Filter
	f      *sessionfeed.Follower

	drawn  bool
	order  []string               // the conversations drawn, in order
	shown  map[string][]shownTurn // conversation → its turns as drawn
	totals map[string]Totals      // conversation → its totals as drawn
	// records are the records decoded so far, by conversation.
	records map[string]records
}

// shownTurn is a turn as a calls page was shown it.
type shownTurn struct {
	id     int64
	nodes  int
	newest int64
}

// Watch starts following what List lists for one open page. Its first
// Changes are the whole listing. Close it when the page goes away.
// Errors: NotFound for a conversation the session does not own.
func (s *Service) Watch(ctx context.Context, session string, f Filter) (*Watch, error) {
	if f.Conversation != "" {
		if _, err := s.records.Conversation(ctx, session, f.Conversation); err != nil {
			return nil, errNoConversation()
		}
	}
	return &Watch{svc: s, filter: f, f: s.chat.Sessions().Follow(session)}, nil
}

// Close stops following.
func (w *Watch) Close() { w.f.Close() }

// Wait waits until a conversation the page follows may have recorded
// something since the last Changes. It returns the context's error.
func (w *Watch) Wait(ctx context.Context) error { return w.f.Wait(ctx) }

// Change is what changed on a calls page: the whole of it, or some of its
// conversations.
type Change struct {
	Full *Listing
	// Conversations changed, each as it is now.
	Conversations []ConversationChange
	// Totals add up every conversation listed, as they are now, Full or
	// not.
	Totals Totals
}

// Empty reports whether nothing changed.
func (c Change) Empty() bool { return c.Full == nil && len(c.Conversations) == 0 }

// ConversationChange is a conversation of a calls page that changed: drawn
// whole again, or some of its turns drawn again and some added after the
// others. Its totals have changed either way.
type ConversationChange struct {
	Conversation Conversation
	Whole        bool
	Changed      []int // indexes in Conversation.Turns of turns to draw again
	Added        []int // indexes of turns to add, in order
}

// Changes returns what changed since the page was last shown, and takes it
// as shown: the first time, everything. A change it cannot tell as turns
// (a new conversation, turns that are no longer a continuation of those
// shown) is the whole page.
func (w *Watch) Changes(ctx context.Context) (Change, error) {
	u := w.f.Take()
	session := u.Session
	if !w.drawn {
		return w.full(ctx, session)
	}
	dirty := map[string]bool{}
	for _, id := range u.Recorded {
		if w.filter.Conversation == "" || id == w.filter.Conversation {
			dirty[id] = true
		}
	}
	var ch Change
	for _, id := range w.order {
		if !dirty[id] {
			continue
		}
		delete(dirty, id)
		conv, nodes, err := w.svc.records.Load(ctx, session, id)
		if apperr.CodeOf(err) == apperr.NotFound {
			return w.full(ctx, session) // it is no longer the session's
		}
		if err != nil {
			return Change{}, err
		}
		c := read(conv, nodes, w.filter, w.records[id])
		cc := ConversationChange{Conversation: c}
		prev := w.shown[id]
		continues := len(prev) > 0 && len(prev) <= len(c.Turns)
		for i := 0; continues && i < len(prev); i++ {
			continues = prev[i].id == c.Turns[i].ID
		}
		if !continues {
			cc.Whole = true
		} else {
			for i, t := range c.Turns {
				switch {
				case i >= len(prev):
					cc.Added = append(cc.Added, i)
				case prev[i].nodes != t.nodes || prev[i].newest != t.newest:
					cc.Changed = append(cc.Changed, i)
				}
			}
		}
		w.remember(c)
		ch.Conversations = append(ch.Conversations, cc)
	}
	if len(dirty) > 0 {
		return w.full(ctx, session) // a conversation not drawn yet
	}
	for _, id := range w.order {
		ch.Totals.add(w.totals[id])
	}
	return ch, nil
}

// full returns the whole page and takes it as shown.
func (w *Watch) full(ctx context.Context, session string) (Change, error) {
	w.records = map[string]records{}
	l, err := w.svc.list(ctx, session, w.filter, w.records)
	if err != nil {
		return Change{}, err
	}
	w.drawn, w.order = true, nil
	w.shown, w.totals = map[string][]shownTurn{}, map[string]Totals{}
	for _, c := range l.Conversations {
		w.order = append(w.order, c.Conversation.ID)
		w.remember(c)
	}
	return Change{Full: &l, Totals: l.Totals}, nil
}

// remember takes c as shown.
func (w *Watch) remember(c Conversation) {
	turns := make([]shownTurn, len(c.Turns))
	for i, t := range c.Turns {
		turns[i] = shownTurn{id: t.ID, nodes: t.nodes, newest: t.newest}
	}
	w.shown[c.Conversation.ID] = turns
	w.totals[c.Conversation.ID] = c.Totals
}
