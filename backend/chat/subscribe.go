package chat

import (
	"context"

	"github.com/sweatpants-go/sweatpants/backend/tree"
)

// Change is one thing that changed on a conversation's page: an Item, the
// Status, the conversation's Title, or else the Notice (which may be empty,
// to clear it).
type Change struct {
	Seq    int64
	Item   *Item // an item to show; New when it is appended, else it replaces the shown one
	New    bool
	Status *Status
	Title  *tree.Conversation
	Notice Notice
}

// maxQueued bounds a subscriber's queue. A subscriber that falls further
// behind gets one full re-render instead (Resync), so a slow reader may miss
// intermediate states but never the final one.
const maxQueued = 256

// Subscription delivers a conversation's changes to one open page.
type Subscription struct {
	l      *conversation
	ready  chan struct{} // has a value when there is something to take
	queue  []Change
	resync bool
	// noticesOnly subscriptions queue only notices; any other change only
	// wakes them, and a resync hands them no view. A tree inspector looks
	// at the tree itself when woken, so queueing the page's changes for
	// it would only make it fall behind and have a whole page view built
	// for nothing.
	noticesOnly bool
}

// Subscribe opens a subscription to a conversation the session owns and
// returns it with the view it starts from; changes after that view arrive
// through Next. Close it when the page goes away.
func (s *Service) Subscribe(ctx context.Context, session, id string) (*Subscription, View, error) {
	return s.subscribe(ctx, session, id, false)
}

// subscribe opens a subscription; with noticesOnly, see Subscription, the
// view it returns holds only the notice.
func (s *Service) subscribe(ctx context.Context, session, id string, noticesOnly bool) (*Subscription, View, error) {
	l, err := s.acquire(ctx, session, id)
	if err != nil {
		return nil, View{}, err
	}
	sub := &Subscription{l: l, ready: make(chan struct{}, 1), noticesOnly: noticesOnly}
	l.lock()
	defer l.mu.Unlock()
	l.subs[sub] = struct{}{}
	return sub, sub.viewLocked(), nil
}

// viewLocked is the view a subscriber starts from; l.mu is held.
func (sub *Subscription) viewLocked() View {
	if sub.noticesOnly {
		return View{Notice: sub.l.notice}
	}
	return sub.l.view()
}

// Close ends the subscription.
func (sub *Subscription) Close() {
	l := sub.l
	l.mu.Lock()
	_, ok := l.subs[sub]
	delete(l.subs, sub)
	l.mu.Unlock()
	if ok {
		l.svc.release(l)
	}
}

// Next waits for changes. It returns the queued changes in order, or, for a
// subscriber that fell behind, resync and the current view.
func (sub *Subscription) Next(ctx context.Context) (changes []Change, resync *View, err error) {
	select {
	case <-sub.ready:
	case <-ctx.Done():
		return nil, nil, ctx.Err()
	}
	l := sub.l
	l.mu.Lock()
	defer l.mu.Unlock()
	if sub.resync {
		sub.resync, sub.queue = false, nil
		v := sub.viewLocked()
		return nil, &v, nil
	}
	changes, sub.queue = sub.queue, nil
	return changes, nil, nil
}

// resyncLocked has every subscriber re-render the whole conversation, for
// changes that remove what pages show; l.mu is held.
func (l *conversation) resyncLocked() {
	l.seq++
	for sub := range l.subs {
		sub.resync, sub.queue = true, nil
		select {
		case sub.ready <- struct{}{}:
		default:
		}
	}
}

// broadcastLocked queues c for every subscriber; l.mu is held. Status
// changes replace a status change still queued, so streaming text coalesces.
func (l *conversation) broadcastLocked(c Change) {
	l.seq++
	c.Seq = l.seq
	for sub := range l.subs {
		if sub.resync {
			continue
		}
		if sub.noticesOnly && (c.Item != nil || c.Status != nil || c.Title != nil) {
			// only woken, below
		} else if n := len(sub.queue); c.Status != nil && n > 0 && sub.queue[n-1].Status != nil {
			sub.queue[n-1] = c
		} else if n >= maxQueued {
			sub.resync, sub.queue = true, nil
		} else {
			sub.queue = append(sub.queue, c)
		}
		select {
		case sub.ready <- struct{}{}:
		default:
		}
	}
}
