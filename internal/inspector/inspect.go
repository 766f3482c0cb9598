// Package inspector is the tree inspector's read model: a conversation's
// whole tree, its HEAD and its reflog laid open for developers, and, for an
// open inspector, what changed since it was drawn — a few nodes and marks,
// not the whole tree again. It follows the conversation through the chat
// service's feed (feed.Follower) and reads nothing else of it.
package inspector

import (
	"context"
	"encoding/json"
	"time"

	"github.com/sweatpants-go/sweatpants/internal/feed"
	"github.com/sweatpants-go/sweatpants/internal/pageview"
	"github.com/sweatpants-go/sweatpants/internal/tree"
)

// Following is what the inspector needs of the chat service.
type Following interface {
	// Follow follows a conversation the session owns. Errors: NotFound.
	Follow(ctx context.Context, session, id string, w feed.Want) (*feed.Follower, error)
}

// Inspection is a conversation laid open for developers: every node of
// every branch, HEAD, and the reflog of HEAD's moves. In a TreeChange it
// holds only the nodes the change draws.
type Inspection struct {
	Conversation tree.Conversation
	Nodes        map[int64]tree.Node
	Children     map[int64][]int64 // parent → children, oldest first; roots under 0
	Count        int               // how many nodes the conversation has
	Reflog       []tree.RefEntry   // newest first
	Running      bool
	Waiting      bool // the running turn waits for the user to answer
	// Retention is how long gc keeps what nothing reaches.
	Retention time.Duration
	// At is the reflog entry being inspected, if any; OnPath holds the nodes
	// from the root to the inspected state (HEAD when At is nil).
	At     *tree.RefEntry
	OnPath map[int64]bool
	Path   []tree.Node
	// Current holds the reflog entries whose state is HEAD's: recovering
	// one would change nothing.
	Current map[int64]bool
	// Here is the newest of them, the move HEAD's state came from: the one
	// row marked as HEAD's (0 when none is).
	Here int64
	// HeadNode is the node HEAD is at (zero before the first).
	HeadNode tree.Node
	// Targets are the nodes the reflog entries shown moved HEAD to, by id.
	Targets map[int64]tree.Node
	// Samples are the model calls among Nodes, by node, each with its
	// whole request: a call recorded as what was new in its request is
	// shown as it was sent (tree.Requests).
	Samples map[int64]Sample
	// State is the agents' state at Selected, or when none is, at the end
	// of Path (HEAD's, or the inspected state's), each with the node that
	// last changed it.
	State []AgentState
	// Selected is the node the developer picked to see the agents' state
	// at (Query.Node), on any branch; zero when none is picked.
	Selected tree.Node
	// SelectedOnPath says whether Selected is on Path's branch: HEAD's, or
	// the inspected state's.
	SelectedOnPath bool
	// Ends are the ForkEnd nodes of the Fork nodes among Nodes, by Fork
	// node: what the agent decided of each block it tried, on the marked
	// path where it went through the block (see tried.go). Undecided are
	// the Fork nodes whose block was left without a decision: its turn
	// ended, or the conversation went elsewhere. A Fork node in neither is
	// a block HEAD's turn is trying.
	Ends      map[int64]tree.Node
	Undecided map[int64]bool
	// Calls are the method calls among Nodes and their answers, each in
	// words, by node (calls.go): a method's question and answer read as
	// the call they are, with the progress recorded with the answer.
	Calls map[int64]MethodCall
}

// AgentState is one agent's state as the inspector shows it: its value,
// and Node, the change that set it (agents.State, package state).
type AgentState struct {
	Agent, Name string
	Value       json.RawMessage
	Node        int64
	// Call is the tool call that made the change, when it is recorded (a
	// tool call is recorded when it ends); Turn is the message whose turn
	// made it. Either is zero when the tree does not hold it.
	Call, Turn tree.Node
}

// Query says what an inspector shows besides the tree: At, when not zero,
// names a reflog entry whose state (as Recover would restore it) is shown
// instead of HEAD's; Node, when not zero, names a node at which the agents'
// state is shown, on any branch.
type Query struct {
	At, Node int64
}

// Sample is a model call as the inspector shows it: its record with the
// whole request, and how it was recorded.
type Sample struct {
	Record tree.SampleRecord
	// Base is the call it was recorded against, 0 when it was recorded
	// whole; it kept Kept of Base's messages, added New, and offered
	// Base's tools when SameTools.
	Base      int64
	Kept, New int
	SameTools bool
}

// Inspect returns the conversation's whole tree and reflog, as q asks.
// Errors: NotFound for an unknown conversation, reflog entry or node.
func Inspect(ctx context.Context, svc Following, session, id string, q Query) (Inspection, error) {
	f, err := svc.Follow(ctx, session, id, feed.Want{})
	if err != nil {
		return Inspection{}, err
	}
	defer f.Close()
	v, err := newView(ctx, f, q)
	if err != nil {
		return Inspection{}, err
	}
	return v.all(ctx)
}

// Watch follows a conversation's tree for one open inspector. It remembers
// what the inspector shows, so that it can tell what changed since — a few
// nodes and marks, not the whole tree again.
type Watch struct {
	f      *feed.Follower
	view   view
	resync bool // the follower was told to start over
}

// Open starts following a conversation the session owns for an inspector
// that shows what q asks. Its first Changes are the whole inspection.
// Close it when the inspector goes away. Errors: NotFound for an unknown
// conversation, reflog entry or node.
func Open(ctx context.Context, svc Following, session, id string, q Query) (*Watch, error) {
	// Only the notices are queued: the inspector looks at the tree itself
	// when woken, so queueing the page's changes for it would only make it
	// fall behind and have a whole page view built for nothing.
	f, err := svc.Follow(ctx, session, id, feed.Want{Notices: true})
	if err != nil {
		return nil, err
	}
	v, err := newView(ctx, f, q)
	if err != nil {
		f.Close()
		return nil, err
	}
	return &Watch{f: f, view: v}, nil
}

// Close stops following the tree.
func (w *Watch) Close() { w.f.Close() }

// Wait waits until the tree may differ from what the inspector shows
// (moved), or notices arrive, which it returns as they come. Changes that
// leave the tree as it is (a progress report, a model's reply streaming in)
// are passed over at the cost of a look at three numbers.
func (w *Watch) Wait(ctx context.Context) (notices []pageview.Notice, moved bool, err error) {
	for {
		u, err := w.f.Next(ctx)
		if err != nil {
			return nil, false, err
		}
		changes := u.Changes
		if u.Resync != nil { // the notices queued before it are in its view
			w.resync = true
			changes = []feed.Change{{Notice: u.Resync.Notice}}
		}
		for _, c := range changes {
			notices = append(notices, c.Notice)
		}
		moved = w.resync || w.view.moved()
		if moved || len(notices) > 0 {
			return notices, moved, nil
		}
	}
}

// Whole reports whether the next Changes draws the inspector whole (Full):
// nothing was drawn yet, or the follower was told to start over. (A
// change that turns out not to be a patch is drawn whole too, rarely: a
// node gone without a resync.)
func (w *Watch) Whole() bool { return !w.view.drawn || w.resync }

// Changes returns what changed in the tree since the inspector was last
// shown it, and takes it as shown: the first time, everything. An empty
// TreeChange means nothing did. Errors: NotFound when the inspected reflog
// entry or the picked node was collected.
func (w *Watch) Changes(ctx context.Context) (TreeChange, error) {
	resync := w.resync
	w.resync = false
	return w.view.changes(ctx, resync)
}

// TreeChange is what changed in an inspector: either Full, everything to
// draw again, or the parts below, drawn from In (which holds the nodes they
// show, with their marks, HEAD, the count and whether a turn runs).
type TreeChange struct {
	Full *Inspection
	In   Inspection
	// Growths place the new nodes, in order.
	Growths []Growth
	// Marked are nodes already drawn whose on-path or HEAD mark changed.
	Marked []int64
	// Legend is set when the node count, HEAD or the running turn changed.
	Legend bool
	// PathAdded are nodes that extend the inspected state's path (only
	// when At is set); PathRedrawn asks for In.Path drawn anew instead.
	PathAdded   []tree.Node
	PathRedrawn bool
	// Entries are new reflog entries, newest first; Flipped are entries
	// already drawn that became current or stopped being current.
	Entries []tree.RefEntry
	Flipped []tree.RefEntry
	// State is set when the agents' state shown changed, or what it says
	// of where it is (In.State, In.Selected).
	State bool
}

// Empty reports whether nothing changed.
func (c TreeChange) Empty() bool {
	return c.Full == nil && len(c.Growths) == 0 && len(c.Marked) == 0 && !c.Legend &&
		len(c.PathAdded) == 0 && !c.PathRedrawn && len(c.Entries) == 0 && len(c.Flipped) == 0 && !c.State
}

// GrowthKind says how new nodes join the drawn tree. The tree is drawn as
// chains — runs of nodes with one child each, flat — and forks, whose
// children each start a branch of their own.
type GrowthKind int

const (
	// Extend continues the chain that ended at Node with the chain that
	// starts at From.
	Extend GrowthKind = iota + 1
	// Fork makes Node, in the branch that starts at Block, a fork: its
	// children's branches are drawn at the end of that branch. Moved are
	// the nodes that followed Node in its chain, and MovedFork (if not 0)
	// the fork they led to; they leave and are drawn again in a branch.
	Fork
	// AddBranch adds the branch that starts at From to the fork at Node (0:
	// a new root).
	AddBranch
)

// Growth is one place where new nodes join the drawn tree.
type Growth struct {
	Kind      GrowthKind
	Node      int64
	From      int64
	Block     int64
	Moved     []int64
	MovedFork int64
}
