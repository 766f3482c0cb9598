package chat

import (
	"context"
	"sync"
	"time"

	"github.com/sweatpants-go/sweatpants/internal/consent"
	"github.com/sweatpants-go/sweatpants/internal/feed"
	"github.com/sweatpants-go/sweatpants/internal/inbox"
	"github.com/sweatpants-go/sweatpants/internal/pageview"
	"github.com/sweatpants-go/sweatpants/internal/tree"
)

// conversation is the in-memory state of a conversation that has a running
// turn or an open page. mu guards everything below it and is held while a
// node is appended, so memory and the database agree. It keeps the tree,
// the turns, the remembered choices, the timers and the lease; the rest is
// owned by its parts, each a type whose fields only its own methods
// write: the questions, the inbox and the page. They are values under mu,
// not monitors of their own: one lock, and no goroutine of theirs.
type conversation struct {
	svc   *Service
	refs  int    // guarded by svc.mu
	owner string // the session that owns it; guarded by svc.mu, as a rotation changes it
	// unlease gives the conversation's lease back when it leaves memory
	// (lease.go); guarded by svc.mu.
	unlease func()

	mu   sync.Mutex
	conv tree.Conversation
	idx  *tree.Index // every node of every branch
	path tree.Path   // root to HEAD
	// current is the flow's running turn, if any, and sides the side
	// turns by their side question's node, while they work.
	current *turn
	sides   map[int64]*turn
	active  time.Time       // when the last node was recorded
	choices consent.Choices // the user's choices for the conversation on HEAD's branch, as read (package consent)
	// implements are the methods its frontends said they implement, nil
	// while none said (methods.go).
	implements map[string]bool
	// suspendTimer suspends the turn once nobody watched it for a while
	// (suspend.go).
	suspendTimer *time.Timer

	// The parts below own their fields, under mu as well: the questions
	// the turns wait on (questions.go), the messages coming in (inbox.go)
	// and what the pages are told (page.go).
	questions questions
	inbox     *inbox.Inbox
	page      page
	// records holds a call turn's tool record until the turn's reply
	// (held.go).
	records heldRecord
}

func newConversation(s *Service, meta tree.Conversation, nodes []tree.Node) *conversation {
	owner := meta.Session
	meta.Session = "" // owner is the one record of it in memory, as a rotation changes it
	c := &conversation{
		svc: s, conv: meta, owner: owner,
		idx:   tree.NewIndex(nodes),
		sides: map[int64]*turn{},
	}
	c.questions = questions{c: c, pending: map[string]*waiter{}, rejected: map[string]*pageview.ElicitView{}}
	c.page = page{c: c}
	c.path = c.idx.PathTo(meta.Head)
	c.inbox = inbox.New(c.idx)
	return c
}

// running reports whether a turn runs (or waits for an answer); c.mu is held.
func (c *conversation) running() bool { return c.current != nil }

// appendLocked records n durably as a child of HEAD (or of n.Parent when
// opts.Fork is set), makes it HEAD and tells subscribers; c.mu is held. An
// answer held for the turn's next record, and a call turn's tool record
// held for its reply (held.go), are written with n, in the same commit,
// when n goes plainly on HEAD.
func (c *conversation) appendLocked(ctx context.Context, n tree.Node, opts tree.AppendOptions) (tree.Node, error) {
	n.Conversation = c.conv.ID
	h, recs := c.questions.unholdLocked(), c.records.take()
	if h == nil && len(recs) == 0 {
		return c.writeLocked(ctx, n, opts)
	}
	if opts == (tree.AppendOptions{}) {
		var chain []tree.Node
		if h != nil {
			chain = append(chain, h.node)
		}
		chain = append(chain, recs...)
		chain[0].Parent = c.conv.Head
		all, err := c.svc.store.AppendChain(ctx, append(chain, n))
		if err == nil {
			for i, m := range all {
				c.recordedLocked(m, opts)
				if i == 0 && h != nil {
					h.node.ID = m.ID
					c.questions.settleLocked(h, nil)
				}
			}
			return all[len(all)-1], nil
		}
		// Written apart, one's failure is not the other's.
		c.svc.log.Warn("held records and the next could not be written together; writing them apart", "conversation", c.conv.ID, "err", err)
	}
	if h != nil {
		m, err := c.writeLocked(ctx, h.node, tree.AppendOptions{})
		h.node.ID = m.ID
		c.questions.settleLocked(h, err)
		if err != nil {
			return tree.Node{}, err
		}
	}
	for _, rec := range recs {
		if _, err := c.writeLocked(ctx, rec, tree.AppendOptions{}); err != nil {
			return tree.Node{}, err
		}
	}
	return c.writeLocked(ctx, n, opts)
}

// writeLocked records n alone; see appendLocked.
func (c *conversation) writeLocked(ctx context.Context, n tree.Node, opts tree.AppendOptions) (tree.Node, error) {
	if !opts.Fork {
		n.Parent = c.conv.Head
	}
	n, err := c.svc.store.Append(ctx, n, opts)
	if err != nil {
		return n, err
	}
	c.recordedLocked(n, opts)
	return n, nil
}

// recordedLocked adds n, just recorded, to memory and tells subscribers.
func (c *conversation) recordedLocked(n tree.Node, opts tree.AppendOptions) {
	c.active = c.svc.now()
	c.idx.Add(n)
	c.inbox.Note(n)
	c.page.hub.RecordedLocked(n)
	c.page.sessionRecordedLocked()
	c.questions.recordedLocked(n)
	if opts.Aside {
		c.page.hub.ShowLocked(func() (feed.Change, bool) {
			it, ok := c.reader().Side(n)
			return feed.Change{Item: &it, New: n.Kind == tree.SideQuestion}, ok
		})
		return
	}
	c.conv.Head = n.ID
	if n.Parent == c.path.Head() {
		c.path = append(c.path, n)
		c.page.hub.ShowLocked(func() (feed.Change, bool) {
			it, ok := c.reader().Node(n)
			return feed.Change{Item: &it, New: true}, ok
		})
		return
	}
	c.path = c.idx.PathTo(n.ID)
	c.page.hub.ResyncLocked()
}
