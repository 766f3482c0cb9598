package chat

import (
	"time"

	"github.com/sweatpants-go/sweatpants/internal/pageview"
	"github.com/sweatpants-go/sweatpants/internal/tree"
)

// page is what the conversation's pages are told: the followers that
// follow it (feed.go), the status of its turn, and its notice
// (notice.go). It owns these fields, which conversation's mu guards; it
// reads the tree, the turns and the questions through c, and nothing it
// does changes them: the conversation's state flows into the page, never
// back.
type page struct {
	c         *conversation
	followers map[*Follower]struct{}
	// pages counts the followers that want the page's changes (Want.Page):
	// while there are none, nothing is built for them (showLocked).
	pages    int
	status   pageview.Status
	notice   pageview.Notice // shown on the conversation's pages until the next command
	noticeAt time.Time       // when notice was set
	// modelSince is when the running turn's model call began, zero when it
	// is not waiting on one (modelwait.go).
	modelSince time.Time
}

// statusLocked is the status the pages show: the turn's, the questions'
// queue, the side questions working, the messages queued and the wait on
// the model. c.mu is held.
func (pg *page) statusLocked() pageview.Status {
	st := pg.status
	st.Running = pg.c.running()
	st.Waiting = pg.c.running() && len(pg.c.questions.queueLocked()) > 0
	st.Aside = len(pg.c.sides) > 0
	st.Queued = pg.c.inbox.queuedLocked()
	if !pg.modelSince.IsZero() && st.Draft == "" {
		st.ModelWait = pg.c.svc.since(pg.modelSince)
	}
	return st
}

// turnStateLocked says what the turn does; c.mu is held.
func (pg *page) turnStateLocked() TurnState {
	switch {
	case !pg.c.running():
		return TurnIdle
	case len(pg.c.questions.queueLocked()) > 0:
		return TurnWaiting
	}
	return TurnRunning
}

// recordedFeedLocked hands n, just recorded, to the followers that want
// nodes, and wakes the rest; c.mu is held.
func (pg *page) recordedFeedLocked(n tree.Node) {
	for f := range pg.followers {
		if f.want.Nodes {
			if f.rescan {
				// reads the record when it catches up
			} else if len(f.nodes) >= maxQueuedNodes {
				f.nodes, f.rescan = nil, true
			} else {
				f.nodes = append(f.nodes, n)
			}
		}
		f.wakeLocked()
	}
}

// resyncLocked has every follower draw the conversation again, for changes
// that remove what pages show; c.mu is held.
func (pg *page) resyncLocked() {
	for f := range pg.followers {
		f.resync, f.changes = true, nil
		f.wakeLocked()
	}
}

// broadcastLocked hands ch to the followers that want it and wakes the
// rest; c.mu is held. A status change replaces a status change still
// queued, so streaming text coalesces.
func (pg *page) broadcastLocked(ch Change) {
	for f := range pg.followers {
		wants := f.want.Page || f.want.Notices && ch.Item == nil && ch.Status == nil && ch.Title == nil
		switch n := len(f.changes); {
		case f.resync || !wants:
			// only woken
		case ch.Status != nil && n > 0 && f.changes[n-1].Status != nil:
			f.changes[n-1] = ch
		case n >= maxQueued:
			f.resync, f.changes = true, nil
		default:
			f.changes = append(f.changes, ch)
		}
		f.wakeLocked()
	}
}

// showLocked hands the change that build makes, an item or a status, to
// the followers that want the page's changes and wakes the rest, as
// broadcastLocked does; build returns false when there is nothing to show.
// build runs once for all followers, and not at all when none shows the
// page (a turn run for an MCP client, a page closed): the rest are only
// woken, and what nobody reads is never built. c.mu is held.
func (pg *page) showLocked(build func() (Change, bool)) {
	if pg.pages == 0 {
		pg.wakeAllLocked()
		return
	}
	if ch, ok := build(); ok {
		pg.broadcastLocked(ch)
	}
}

func (pg *page) broadcastStatusLocked() {
	pg.showLocked(func() (Change, bool) {
		st := pg.statusLocked()
		return Change{Status: &st}, true
	})
}

// wakeAllLocked wakes every follower, handing none anything. c.mu is held.
func (pg *page) wakeAllLocked() {
	for f := range pg.followers {
		f.wakeLocked()
	}
}

// sessionRecordedLocked tells the followers of c's session that c recorded
// a node; c.mu is held.
func (pg *page) sessionRecordedLocked() {
	if !pg.c.svc.sessions.Watched() {
		return
	}
	pg.c.svc.mu.Lock()
	owner := pg.c.owner
	pg.c.svc.mu.Unlock()
	pg.c.svc.sessions.Recorded(owner, pg.c.conv.ID)
}

// sayLocked shows n on every open page of the conversation until the next
// command. c.mu is held.
func (pg *page) sayLocked(n pageview.Notice) {
	pg.notice, pg.noticeAt = n, pg.c.svc.now()
	pg.broadcastLocked(Change{Notice: n})
}

// informLocked shows text as news on every open page of the conversation,
// as Inform does. c.mu is held.
func (pg *page) informLocked(text string) {
	pg.sayLocked(pageview.Notice{Text: text, Info: true})
}

// watchedLocked reports whether a page, or another reader, follows the
// conversation. c.mu is held.
func (pg *page) watchedLocked() bool { return len(pg.followers) > 0 }

// goneLocked tells every follower that the conversation is no longer
// followed here, and why. c.mu is held.
func (pg *page) goneLocked(err error) {
	for f := range pg.followers {
		f.gone = err
		f.wakeLocked()
	}
}

// draftLocked returns the flow's reply as it streams. c.mu is held.
func (pg *page) draftLocked() string { return pg.status.Draft }

// draftedLocked adds delta to the flow's streaming reply and shows it; an
// empty delta drops what streamed, which a retried call streams again.
// c.mu is held.
func (pg *page) draftedLocked(delta string) {
	if delta == "" {
		pg.status.Draft = ""
		return
	}
	pg.status.Draft += delta
	pg.broadcastStatusLocked()
}

// turnEndedLocked clears the status of the flow's turn, which ended or
// was set aside. c.mu is held.
func (pg *page) turnEndedLocked() { pg.status = pageview.Status{} }

// modelWaitLocked marks the running turn as waiting on a model call begun
// at since. c.mu is held.
func (pg *page) modelWaitLocked(since time.Time) { pg.modelSince = since }

// modelWaitedLocked shows how long the model call begun at since has been
// waited on, while it is the one waited on and has sent nothing yet.
// c.mu is held.
func (pg *page) modelWaitedLocked(since time.Time) {
	if pg.modelSince == since && pg.status.Draft == "" {
		pg.broadcastStatusLocked()
	}
}

// modelAnsweredLocked ends the wait on the model call begun at since,
// unless a later call waits now. c.mu is held.
func (pg *page) modelAnsweredLocked(since time.Time) {
	if pg.modelSince == since {
		pg.modelSince = time.Time{}
	}
}

// followLocked hands f the conversation's changes from now on. c.mu is
// held.
func (pg *page) followLocked(f *Follower) {
	pg.followers[f] = struct{}{}
	if f.want.Page {
		pg.pages++
	}
}

// unfollowLocked stops handing f changes and reports whether it followed.
// c.mu is held.
func (pg *page) unfollowLocked(f *Follower) bool {
	_, ok := pg.followers[f]
	if ok && f.want.Page {
		pg.pages--
	}
	delete(pg.followers, f)
	return ok
}
