package chat

import (
	"time"

	"github.com/sweatpants-go/sweatpants/internal/feed"
	"github.com/sweatpants-go/sweatpants/internal/pageview"
)

// page is what the conversation's pages are told: the followers that
// follow it (package feed), the status of its turn, and its notice
// (notice.go). It owns these fields, which conversation's mu guards; it
// reads the tree, the turns and the questions through c, and nothing it
// does changes them: the conversation's state flows into the page, never
// back.
type page struct {
	c        *conversation
	hub      feed.Hub // the followers
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
	st.Queued = pg.c.inbox.Texts()
	if !pg.modelSince.IsZero() && st.Draft == "" {
		st.ModelWait = pg.c.svc.since(pg.modelSince)
	}
	return st
}

// turnStateLocked says what the turn does; c.mu is held.
func (pg *page) turnStateLocked() feed.TurnState {
	switch {
	case !pg.c.running():
		return feed.TurnIdle
	case len(pg.c.questions.queueLocked()) > 0:
		return feed.TurnWaiting
	}
	return feed.TurnRunning
}

func (pg *page) broadcastStatusLocked() {
	pg.hub.ShowLocked(func() (feed.Change, bool) {
		st := pg.statusLocked()
		return feed.Change{Status: &st}, true
	})
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
	pg.hub.BroadcastLocked(feed.Change{Notice: n})
}

// informLocked shows text as news on every open page of the conversation,
// as Inform does. c.mu is held.
func (pg *page) informLocked(text string) {
	pg.sayLocked(pageview.Notice{Text: text, Info: true})
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
