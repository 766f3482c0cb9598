package chat

import (
	"context"
	"sync"
	"time"

	"github.com/sweatpants-go/sweatpants/internal/consent"
	"github.com/sweatpants-go/sweatpants/internal/tree"
)

// conversation is the in-memory state of a conversation that has a running
// turn or an open page. mu guards everything below it and is held while a
// node is appended, so memory and the database agree.
type conversation struct {
	svc   *Service
	refs  int    // guarded by svc.mu
	owner string // the session that owns it; guarded by svc.mu, as a rotation changes it
	// unlease gives the conversation's lease back when it leaves memory
	// (lease.go); guarded by svc.mu.
	unlease func()

	mu      sync.Mutex
	conv    tree.Conversation
	idx     *tree.Index // every node of every branch
	path    tree.Path   // root to HEAD
	current *turn       // the running turn, if any
	queue   []Message   // messages waiting for the running turn to end (input.go)
	// onTheWay are the messages with an id being decided on, by id, and
	// sentIDs the ids of the messages recorded, with their nodes, once
	// built (msgid.go).
	onTheWay  map[string]*sending
	sentIDs   map[string]int64
	sides     map[int64]*turn // side question node → its side turn, while it works
	status    Status
	pending   map[string]*waiter     // elicit id → the request waiting on it
	rejected  map[string]*ElicitView // the last rejected submission per elicit
	followers map[*Follower]struct{} // feed.go
	notice    Notice                 // shown on the conversation's pages until the next command
	noticeAt  time.Time              // when notice was set
	active    time.Time              // when the last node was recorded
	held      *heldAnswer            // an answer handed to the turn and not yet written (held.go)
	choices   consent.Choices        // the user's choices for the conversation on HEAD's branch, as read (package consent)
	// modelSince is when the running turn's model call began, zero when it
	// is not waiting on one (modelwait.go).
	modelSince time.Time
	// suspendTimer suspends the turn once nobody watched it for a while
	// (suspend.go).
	suspendTimer *time.Timer
	// lastAnswered is the waiter answered last, whose request the pages
	// still show: kept for its decoded request.
	lastAnswered *waiter
}

func newConversation(s *Service, meta tree.Conversation, nodes []tree.Node) *conversation {
	owner := meta.Session
	meta.Session = "" // owner is the one record of it in memory, as a rotation changes it
	c := &conversation{
		svc: s, conv: meta, owner: owner,
		idx:       tree.NewIndex(nodes),
		pending:   map[string]*waiter{},
		onTheWay:  map[string]*sending{},
		sides:     map[int64]*turn{},
		rejected:  map[string]*ElicitView{},
		followers: map[*Follower]struct{}{},
	}
	c.path = c.idx.PathTo(meta.Head)
	for _, n := range c.idx.Unsent() { // queued before a restart: still to be sent
		m, _ := tree.Decode[tree.Message](n)
		c.queue = append(c.queue, Message{ID: m.ID, Text: m.Text, Attachments: m.Attachments, queued: n.ID})
	}
	return c
}

// running reports whether a turn runs (or waits for an answer); c.mu is held.
func (c *conversation) running() bool { return c.current != nil }

// appendLocked records n durably as a child of HEAD (or of n.Parent when
// opts.Fork is set), makes it HEAD and tells subscribers; c.mu is held. An
// answer held for the turn's next record is written with n, in the same
// commit, when n goes plainly on HEAD.
func (c *conversation) appendLocked(ctx context.Context, n tree.Node, opts tree.AppendOptions) (tree.Node, error) {
	n.Conversation = c.conv.ID
	if h := c.held; h != nil {
		c.held = nil
		h.timer.Stop()
		if opts == (tree.AppendOptions{}) {
			h.node.Parent = c.conv.Head
			both, err := c.svc.store.AppendChain(ctx, []tree.Node{h.node, n})
			if err == nil {
				c.recordedLocked(both[0], opts)
				c.settleLocked(h, nil)
				c.recordedLocked(both[1], opts)
				return both[1], nil
			}
			// Written apart, one's failure is not the other's.
			c.svc.log.Warn("an answer and the next record could not be written together; writing them apart", "conversation", c.conv.ID, "err", err)
		}
		_, err := c.writeLocked(ctx, h.node, tree.AppendOptions{})
		c.settleLocked(h, err)
		if err != nil {
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
	c.noteSentIDLocked(n)
	c.recordedFeedLocked(n)
	c.sessionRecordedLocked()
	if w := c.pending[n.Ref]; w != nil && n.Kind == tree.ElicitRequest {
		w.node = n.ID // its place in the queue, before anyone is told
	}
	if opts.Aside {
		if it, ok := c.sideItemLocked(n); ok {
			c.broadcastLocked(Change{Item: &it, New: n.Kind == tree.SideQuestion})
		}
		return
	}
	c.conv.Head = n.ID
	if n.Parent == c.path.Head() {
		c.path = append(c.path, n)
		if items := buildItems([]tree.Node{n}, c); len(items) == 1 {
			if items[0].Elicit != nil {
				c.liveLocked(items[0].Elicit)
			}
			c.broadcastLocked(Change{Item: &items[0], New: true})
		}
		return
	}
	c.path = c.idx.PathTo(n.ID)
	c.resyncLocked()
}

func (c *conversation) statusLocked() Status {
	st := c.status
	st.Running = c.running()
	st.Waiting = c.running() && len(c.queueLocked()) > 0
	st.Aside = len(c.sides) > 0
	for _, m := range c.queue {
		st.Queued = append(st.Queued, m.Text)
	}
	if !c.modelSince.IsZero() && st.Draft == "" {
		st.ModelWait = c.svc.since(c.modelSince)
	}
	return st
}
