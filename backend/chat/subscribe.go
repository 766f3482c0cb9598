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
	conv   *conversation
	ready  chan struct{} // has a value when there is something to take
	queue  []Change
	resync bool
	// noticesOnly subscriptions queue only notices; any other change only
	// wakes them, and a resync hands them no view. A tree inspector looks
	// at the tree itself when woken, so queueing the page's changes for
	// it would only make it fall behind and have a whole page view built
	// for nothing.
	noticesOnly bool
	// events, when set, makes this an event stream's subscription
	// (events.go): it is handed every node recorded, and any other change
	// only wakes it.
	events *eventFeed
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
	c, err := s.acquire(ctx, session, id)
	if err != nil {
		return nil, View{}, err
	}
	sub := &Subscription{conv: c, ready: make(chan struct{}, 1), noticesOnly: noticesOnly}
	c.lock()
	defer c.mu.Unlock()
	c.subs[sub] = struct{}{}
	return sub, sub.viewLocked(), nil
}

// viewLocked is the view a subscriber starts from; c.mu is held.
func (sub *Subscription) viewLocked() View {
	if sub.noticesOnly {
		return View{Notice: sub.conv.notice}
	}
	return sub.conv.view()
}

// Close ends the subscription.
func (sub *Subscription) Close() {
	c := sub.conv
	c.mu.Lock()
	_, ok := c.subs[sub]
	delete(c.subs, sub)
	c.mu.Unlock()
	if ok {
		c.svc.release(c)
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
	c := sub.conv
	c.mu.Lock()
	defer c.mu.Unlock()
	if sub.resync {
		sub.resync, sub.queue = false, nil
		v := sub.viewLocked()
		return nil, &v, nil
	}
	changes, sub.queue = sub.queue, nil
	return changes, nil, nil
}

// resyncLocked has every subscriber re-render the whole conversation, for
// changes that remove what pages show; c.mu is held.
func (c *conversation) resyncLocked() {
	c.seq++
	for sub := range c.subs {
		sub.resync, sub.queue = true, nil
		select {
		case sub.ready <- struct{}{}:
		default:
		}
	}
}

// broadcastLocked queues ch for every subscriber; c.mu is held. Status
// changes replace a status change still queued, so streaming text coalesces.
func (c *conversation) broadcastLocked(ch Change) {
	c.seq++
	ch.Seq = c.seq
	for sub := range c.subs {
		if sub.resync {
			continue
		}
		if sub.events != nil || sub.noticesOnly && (ch.Item != nil || ch.Status != nil || ch.Title != nil) {
			// only woken, below
		} else if n := len(sub.queue); ch.Status != nil && n > 0 && sub.queue[n-1].Status != nil {
			sub.queue[n-1] = ch
		} else if n >= maxQueued {
			sub.resync, sub.queue = true, nil
		} else {
			sub.queue = append(sub.queue, ch)
		}
		select {
		case sub.ready <- struct{}{}:
		default:
		}
	}
}

func (c *conversation) broadcastStatusLocked() {
	st := c.statusLocked()
	c.broadcastLocked(Change{Status: &st})
}
