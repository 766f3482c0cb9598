package chat

import (
	"github.com/sweatpants-go/sweatpants/internal/feed"
	"github.com/sweatpants-go/sweatpants/internal/inbound"
	"github.com/sweatpants-go/sweatpants/internal/pageview"
	"time"
)

// Notices. A command that went wrong where no better place shows it, or
// went well and says so, leaves a notice on every open page of the
// conversation until the next command.

// Notice shows a message on every open page of the conversation, for
// problems with a request that has no better place to be shown; "" clears
// the last one.
func (s *Service) Notice(session, id, message string) {
	s.notice(session, id, pageview.Notice{Text: message})
}

// Inform shows a message on every open page of the conversation that tells
// how a request went, when it went well.
func (s *Service) Inform(session, id, message string) {
	s.notice(session, id, pageview.Notice{Text: message, Info: true})
}

// ClearNotice clears the conversation's notice if it was shown before
// since: a command that went well clears what an earlier one left, but not
// what another command, running beside it, said meanwhile.
func (s *Service) ClearNotice(session, id string, since time.Time) {
	s.change(session, id, func(pg *page) bool { return pg.clearNoticeLocked(since) })
}

func (s *Service) notice(session, id string, n pageview.Notice) {
	s.change(session, id, func(pg *page) bool { return pg.noticeLocked(n) })
}

// change runs set on the notice of conversation id if it is in memory and
// session owns it, and tells the pages when set changed it.
func (s *Service) change(session, id string, set func(pg *page) bool) {
	s.mu.Lock()
	c := s.live[id]
	mine := c != nil && c.owner == session
	s.mu.Unlock()
	if !mine {
		return
	}
	c.lock()
	defer c.mu.Unlock()
	if set(&c.page) {
		c.page.hub.BroadcastLocked(feed.Change{Notice: c.page.notice})
	}
}

// clearNoticeLocked clears the notice if it was shown before since, and
// reports whether it did. c.mu is held.
func (pg *page) clearNoticeLocked(since time.Time) bool {
	if pg.notice == (pageview.Notice{}) || !pg.noticeAt.Before(since) {
		return false
	}
	pg.notice = pageview.Notice{}
	return true
}

// noticeLocked makes n the notice, and reports whether that changed it.
// c.mu is held.
func (pg *page) noticeLocked(n pageview.Notice) bool {
	if n == pg.notice {
		return false // most commands clear a notice that is not there
	}
	pg.notice, pg.noticeAt = n, pg.c.svc.now()
	return true
}

// saySentLocked shows on the pages what a message sent while a turn worked
// did, when it did more than start a turn ("Queued — it will be sent when
// the reply ends"). It is said under the lock that decided it, so it is up
// before the reply it talks about can arrive, and it goes when that reply
// does (repliedLocked). c.mu is held.
func (pg *page) saySentLocked(sent inbound.Sent, err error) {
	say := sent.Say()
	if err != nil || say == "" || pg.notice.Text == say && pg.notice.Info {
		return
	}
	pg.notice, pg.noticeAt = pageview.Notice{Text: say, Info: true}, pg.c.svc.now()
	pg.hub.BroadcastLocked(feed.Change{Notice: pg.notice})
}

// repliedLocked clears, as the turn ends, a notice that told how a request
// went: what it spoke of is on the page now. A problem stays until the
// next command. c.mu is held.
func (pg *page) repliedLocked() {
	if pg.notice.Text == "" || !pg.notice.Info {
		return
	}
	pg.notice = pageview.Notice{}
	pg.hub.BroadcastLocked(feed.Change{Notice: pg.notice})
}
