package chat

import (
	"cmp"
	"context"
	"slices"

	"github.com/sweatpants-go/sweatpants/backend/apperr"
	"github.com/sweatpants-go/sweatpants/backend/tree"
)

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
	// At is the reflog entry being inspected, if any; OnPath holds the nodes
	// from the root to the inspected state (HEAD when At is nil).
	At     *tree.RefEntry
	OnPath map[int64]bool
	Path   []tree.Node
	// Current holds the reflog entries whose state is HEAD's: recovering
	// one would change nothing.
	Current map[int64]bool
}

// Inspect returns the conversation's whole tree and reflog; at, when not
// zero, names a reflog entry whose state (as Recover would restore it) is
// shown instead of HEAD's.
func (s *Service) Inspect(ctx context.Context, session, id string, at int64) (Inspection, error) {
	l, err := s.acquire(ctx, session, id)
	if err != nil {
		return Inspection{}, err
	}
	defer s.release(l)
	v, err := newTreeView(ctx, l, at)
	if err != nil {
		return Inspection{}, err
	}
	return v.all(ctx)
}

// TreeWatch follows a conversation's tree for one open inspector. It
// remembers what the inspector shows, so that it can tell what changed
// since — a few nodes and marks, not the whole tree again.
type TreeWatch struct {
	sub    *Subscription
	view   treeView
	resync bool // the subscription was told to start over
}

// WatchTree starts following a conversation the session owns for an
// inspector; at is as for Inspect. Its first Changes are the whole
// inspection. Close it when the inspector goes away. Errors: NotFound for
// an unknown conversation or reflog entry.
func (s *Service) WatchTree(ctx context.Context, session, id string, at int64) (*TreeWatch, error) {
	sub, _, err := s.subscribe(ctx, session, id, true)
	if err != nil {
		return nil, err
	}
	v, err := newTreeView(ctx, sub.l, at)
	if err != nil {
		sub.Close()
		return nil, err
	}
	return &TreeWatch{sub: sub, view: v}, nil
}

// Close stops following the tree.
func (w *TreeWatch) Close() { w.sub.Close() }

// Wait waits until the tree may differ from what the inspector shows,
// handing the notices that arrive meanwhile to notice. Changes that leave
// the tree as it is (a progress report, a model's reply streaming in) are
// passed over at the cost of a look at three numbers. It returns the error
// of notice, or the context's.
func (w *TreeWatch) Wait(ctx context.Context, notice func(Notice) error) error {
	for {
		changes, resync, err := w.sub.Next(ctx)
		if err != nil {
			return err
		}
		if resync != nil { // the notices queued before it are in its view
			w.resync = true
			changes = []Change{{Notice: resync.Notice}}
		}
		for _, c := range changes {
			if c.Item == nil && c.Status == nil && c.Title == nil {
				if err := notice(c.Notice); err != nil {
					return err
				}
			}
		}
		if w.resync || w.view.moved() {
			return nil
		}
	}
}

// Changes returns what changed in the tree since the inspector was last
// shown it, and takes it as shown: the first time, everything. An empty
// TreeChange means nothing did. Errors: NotFound when the inspected reflog
// entry was collected.
func (w *TreeWatch) Changes(ctx context.Context) (TreeChange, error) {
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
}

// Empty reports whether nothing changed.
func (c TreeChange) Empty() bool {
	return c.Full == nil && len(c.Growths) == 0 && len(c.Marked) == 0 && !c.Legend &&
		len(c.PathAdded) == 0 && !c.PathRedrawn && len(c.Entries) == 0 && len(c.Flipped) == 0
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

// treeView is what one inspector was last shown of a conversation's tree.
// It takes l.mu as it is, without writing a held answer first (as lock
// does): an open inspector never costs a turn a commit of its own, and a
// held answer shows once it is written.
type treeView struct {
	l  *conversation
	id string
	at *tree.RefEntry // the reflog entry inspected; nil for HEAD

	drawn   bool
	newest  int64 // the newest node shown
	count   int
	head    int64
	tip     int64 // the end of the marked path: HEAD, or the inspected state
	running bool
	entries []shownEntry // newest first
}

// shownEntry is a reflog row as shown.
type shownEntry struct {
	id      int64
	current bool
}

// newTreeView returns a view of l that has shown nothing yet; at, when not
// zero, is the reflog entry to inspect.
func newTreeView(ctx context.Context, l *conversation, at int64) (treeView, error) {
	v := treeView{l: l, id: l.conv.ID}
	if at == 0 {
		return v, nil
	}
	reflog, err := l.svc.store.Reflog(ctx, v.id)
	if err != nil {
		return treeView{}, err
	}
	i := slices.IndexFunc(reflog, func(e tree.RefEntry) bool { return e.ID == at })
	if i < 0 {
		return treeView{}, apperr.Errorf(apperr.NotFound, "There is no reflog entry %d in this conversation.", at)
	}
	v.at = &reflog[i]
	return v, nil
}

// moved reports whether the tree may differ from what was shown: a node
// came (none leaves without a resync), HEAD moved, or a turn started or
// ended.
func (v *treeView) moved() bool {
	l := v.l
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.idx.Len() != v.count || l.conv.Head != v.head || l.running() != v.running
}

// all returns the whole inspection and takes it as shown.
//
// Like changes, it reads the reflog between two holds of the lock: an entry
// is written with the change it logs, under the lock, so every entry of a
// change seen under the first hold is in the reflog read after it; an entry
// written later comes with a change this view has not taken as shown, and
// the watch is woken for it.
func (v *treeView) all(ctx context.Context) (Inspection, error) {
	l := v.l
	l.mu.Lock()
	in := v.snapshotLocked()
	l.mu.Unlock()
	reflog, err := l.svc.store.Reflog(ctx, v.id)
	if err != nil {
		return Inspection{}, err
	}
	if v.at != nil && !slices.ContainsFunc(reflog, func(e tree.RefEntry) bool { return e.ID == v.at.ID }) {
		return Inspection{}, apperr.Errorf(apperr.NotFound, "There is no reflog entry %d in this conversation any more.", v.at.ID)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	current := l.idx.CurrentEntries(l.path, heads(reflog))
	in.Reflog, in.Current = reflog, make(map[int64]bool, len(reflog))
	v.entries = make([]shownEntry, len(reflog))
	for i, e := range reflog {
		in.Current[e.ID] = current[i]
		v.entries[i] = shownEntry{e.ID, current[i]}
	}
	return in, nil
}

// snapshotLocked copies the whole tree and takes it as shown; l.mu is held.
func (v *treeView) snapshotLocked() Inspection {
	l := v.l
	in := Inspection{
		Conversation: l.conv,
		Nodes:        make(map[int64]tree.Node, l.idx.Len()),
		Children:     make(map[int64][]int64, l.idx.Len()),
		Count:        l.idx.Len(),
		Running:      l.running(),
		At:           v.at,
		OnPath:       map[int64]bool{},
	}
	var newest int64
	for k, n := range l.idx.Nodes() {
		in.Nodes[k] = n
		newest = max(newest, k)
		if kids := l.idx.Children(k); len(kids) > 0 {
			in.Children[k] = slices.Clone(kids)
		}
	}
	if roots := l.idx.Children(0); len(roots) > 0 {
		in.Children[0] = slices.Clone(roots)
	}
	tip := l.conv.Head
	if v.at != nil {
		tip = 0
		if _, ok := l.idx.Node(v.at.Head); ok {
			tip = l.idx.NewestUnder(v.at.Head)
		}
	}
	in.Path = l.idx.PathTo(tip)
	for _, n := range in.Path {
		in.OnPath[n.ID] = true
	}
	v.drawn, v.newest, v.count, v.head, v.tip, v.running = true, newest, l.idx.Len(), l.conv.Head, tip, l.running()
	return in
}

// changes returns what changed since the view was last shown and takes it
// as shown; resync says nodes may have gone (every one is then looked at).
func (v *treeView) changes(ctx context.Context, resync bool) (TreeChange, error) {
	if !v.drawn {
		return v.redraw(ctx)
	}
	l := v.l
	l.mu.Lock()
	ch, grown, ok := v.growLocked(resync)
	l.mu.Unlock()
	if !ok {
		return v.redraw(ctx)
	}
	if !grown && !resync {
		return ch, nil
	}
	reflog, err := l.svc.store.Reflog(ctx, v.id)
	if err != nil {
		return TreeChange{}, err
	}
	l.mu.Lock()
	ok = v.reflogLocked(&ch, reflog)
	l.mu.Unlock()
	if !ok {
		return v.redraw(ctx)
	}
	return ch, nil
}

func (v *treeView) redraw(ctx context.Context) (TreeChange, error) {
	in, err := v.all(ctx)
	if err != nil {
		return TreeChange{}, err
	}
	return TreeChange{Full: &in}, nil
}

// growLocked finds the nodes, marks and legend that changed and takes them
// as shown. grown says whether nodes came or HEAD moved (and so the reflog
// may have grown); ok is false when the change is not a patch: nodes went,
// or the tree was empty. l.mu is held.
func (v *treeView) growLocked(resync bool) (ch TreeChange, grown, ok bool) {
	l := v.l
	head, running := l.conv.Head, l.running()
	if !resync && l.idx.Len() == v.count && head == v.head && running == v.running {
		return ch, false, true
	}
	fresh, ok := v.freshLocked(resync)
	if !ok || (v.count == 0 && len(fresh) > 0) {
		return ch, false, false
	}
	tip := head
	if v.at != nil {
		tip = v.tip
		for i := len(fresh) - 1; i >= 0; i-- {
			if l.idx.Under(fresh[i].ID, v.at.Head) {
				tip = fresh[i].ID
				break
			}
		}
	}
	in := &ch.In
	*in = Inspection{Conversation: l.conv, Nodes: map[int64]tree.Node{}, Children: map[int64][]int64{},
		Count: l.idx.Len(), Running: running, At: v.at, OnPath: map[int64]bool{}, Current: map[int64]bool{}}
	onTip := l.path.Contains
	if v.at != nil {
		in.Path = l.idx.PathTo(tip)
		onTip = tree.Path(in.Path).Contains
	}
	p := patcher{l: l, newest: v.newest, in: in, onTip: onTip, drawn: map[int64]bool{}}
	if !p.place(fresh) {
		return ch, false, false
	}
	ch.Growths = p.growths

	if tip != v.tip || head != v.head {
		leave, join := l.idx.PathDiff(v.tip, tip)
		marked := slices.Concat(leave, join) // on the path or off it now
		if head != v.head {
			marked = append(marked, v.head, head)
		}
		slices.Sort(marked)
		for _, id := range slices.Compact(marked) {
			if n, ok := l.idx.Node(id); ok && id <= v.newest && !p.drawn[id] {
				ch.Marked = append(ch.Marked, id)
				in.Nodes[id] = n
				in.OnPath[id] = onTip(id)
			}
		}
		if v.at != nil && tip != v.tip {
			if len(leave) == 0 {
				for _, id := range slices.Backward(join) {
					n, _ := l.idx.Node(id)
					ch.PathAdded = append(ch.PathAdded, n)
				}
			} else {
				ch.PathRedrawn = true
			}
		}
	}
	ch.Legend = l.idx.Len() != v.count || head != v.head || running != v.running
	grown = len(fresh) > 0 || head != v.head
	if len(fresh) > 0 {
		v.newest = fresh[len(fresh)-1].ID
	}
	v.count, v.head, v.tip, v.running = l.idx.Len(), head, tip, running
	return ch, grown, true
}

// freshLocked returns the nodes newer than the newest shown, oldest first,
// or false when nodes shown are gone. Unless scan is set it looks first at
// the end of HEAD's path, where new nodes mostly are. l.mu is held.
func (v *treeView) freshLocked(scan bool) ([]tree.Node, bool) {
	l := v.l
	var fresh []tree.Node
	if !scan {
		for i := len(l.path) - 1; i >= 0 && l.path[i].ID > v.newest; i-- {
			fresh = append(fresh, l.path[i])
		}
		if len(fresh) == l.idx.Len()-v.count {
			slices.Reverse(fresh)
			return fresh, true
		}
		fresh = fresh[:0]
	}
	old := 0
	for id, n := range l.idx.Nodes() {
		if id > v.newest {
			fresh = append(fresh, n)
		} else {
			old++
		}
	}
	if old != v.count {
		return nil, false
	}
	slices.SortFunc(fresh, func(a, b tree.Node) int { return cmp.Compare(a.ID, b.ID) })
	return fresh, true
}

// patcher works out where new nodes go in the drawn tree, collecting in in
// what the growths draw. Nodes up to newest are drawn already.
type patcher struct {
	l       *conversation
	newest  int64
	in      *Inspection
	onTip   func(int64) bool
	drawn   map[int64]bool // nodes the growths draw
	growths []Growth
}

// place finds the growths for fresh, the new nodes in id order; it reports
// false when they are not a patch (the first root). Each new node hangs
// from a drawn one through the first new node on its way up; the growths
// are worked out per drawn parent, lowest first, so that a fork that moves
// part of the tree is known before the growths inside that part, which it
// draws itself.
func (p *patcher) place(fresh []tree.Node) bool {
	var parents []int64
	for _, n := range fresh {
		if n.Parent <= p.newest && !slices.Contains(parents, n.Parent) {
			parents = append(parents, n.Parent)
		}
	}
	slices.Sort(parents)
	for _, parent := range parents {
		if p.drawn[parent] {
			continue
		}
		kids := p.l.idx.Children(parent)
		old, added := kids[:p.oldKids(parent)], kids[p.oldKids(parent):]
		switch {
		case parent == 0 && len(old) == 0:
			return false
		case parent == 0 || len(old) >= 2:
			for _, k := range added {
				p.add(Growth{Kind: AddBranch, Node: parent, From: k}, k)
			}
		case len(old) == 0 && len(added) == 1:
			p.add(Growth{Kind: Extend, Node: parent, From: added[0]}, added[0])
			if end := p.chainEnd(added[0]); len(p.l.idx.Children(end)) >= 2 {
				p.growths = append(p.growths, Growth{Kind: Fork, Node: end, Block: p.block(parent)})
			}
		case len(old) == 0:
			p.add(Growth{Kind: Fork, Node: parent, Block: p.block(parent)}, added...)
		default: // one child before: the chain breaks after parent
			g := Growth{Kind: Fork, Node: parent, Block: p.block(parent)}
			for id := old[0]; ; {
				g.Moved = append(g.Moved, id)
				if p.oldKids(id) != 1 {
					if p.oldKids(id) >= 2 {
						g.MovedFork = id
					}
					break
				}
				id = p.l.idx.Children(id)[0]
			}
			p.add(g, kids...)
		}
	}
	return true
}

// add records g, which draws the subtrees from roots (and, for a fork,
// the list of its branches).
func (p *patcher) add(g Growth, roots ...int64) {
	p.growths = append(p.growths, g)
	if g.Kind == Fork {
		p.in.Children[g.Node] = slices.Clone(p.l.idx.Children(g.Node))
	}
	for _, r := range roots {
		p.draw(r)
	}
}

// draw puts the subtree from id in the inspection, with the nodes the
// summaries among it stand for.
func (p *patcher) draw(id int64) {
	l, in := p.l, p.in
	stack := []int64{id}
	for len(stack) > 0 {
		id := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		n, _ := l.idx.Node(id)
		p.drawn[id] = true
		in.Nodes[id] = n
		in.OnPath[id] = p.onTip(id)
		in.Children[id] = slices.Clone(l.idx.Children(id))
		stack = append(stack, l.idx.Children(id)...)
		if n.Kind == tree.Summary {
			s, _ := tree.Decode[tree.SummaryRecord](n)
			for _, c := range s.Covers {
				if cn, ok := l.idx.Node(c); ok {
					in.Nodes[c] = cn
				}
			}
		}
	}
}

// oldKids returns how many children node id had when it was last shown.
func (p *patcher) oldKids(id int64) int {
	n, _ := slices.BinarySearch(p.l.idx.Children(id), p.newest+1)
	return n
}

// chainEnd returns the last node of the chain from id, as the tree is now.
func (p *patcher) chainEnd(id int64) int64 {
	for len(p.l.idx.Children(id)) == 1 {
		id = p.l.idx.Children(id)[0]
	}
	return id
}

// block returns the first node of the chain node id was drawn in: the
// branch it is in starts there.
func (p *patcher) block(id int64) int64 {
	for {
		n, _ := p.l.idx.Node(id)
		parent := n.Parent
		if parent == 0 || p.oldKids(parent) != 1 {
			return id
		}
		id = parent
	}
}

// reflogLocked adds to ch the reflog entries that are new and those whose
// current mark changed, and takes them as shown; it reports false when
// entries shown are gone. l.mu is held.
func (v *treeView) reflogLocked(ch *TreeChange, reflog []tree.RefEntry) bool {
	k := len(reflog) // reflog[:k] are new
	if len(v.entries) > 0 {
		if i := slices.IndexFunc(reflog, func(e tree.RefEntry) bool { return e.ID <= v.entries[0].id }); i >= 0 {
			k = i
		}
	}
	if len(reflog)-k != len(v.entries) {
		return false
	}
	for i, e := range v.entries {
		if reflog[k+i].ID != e.id {
			return false
		}
	}
	current := v.l.idx.CurrentEntries(v.l.path, heads(reflog))
	if ch.In.Current == nil {
		ch.In.Current = map[int64]bool{}
	}
	ch.Entries = reflog[:k]
	for i, e := range reflog[:k] {
		ch.In.Current[e.ID] = current[i]
	}
	for i, e := range v.entries {
		if current[k+i] != e.current {
			ch.Flipped = append(ch.Flipped, reflog[k+i])
			ch.In.Current[e.id] = current[k+i]
		}
	}
	v.entries = make([]shownEntry, len(reflog))
	for i, e := range reflog {
		v.entries[i] = shownEntry{e.ID, current[i]}
	}
	return true
}

// Recover makes the state of reflog entry `entry` HEAD again — a discarded
// branch included — with its suspended questions live again. An entry's
// state is the branch its move started, as far as that branch got. A
// running turn is parked first.
func (s *Service) Recover(ctx context.Context, session, id string, entry int64) error {
	l, err := s.acquire(ctx, session, id)
	if err != nil {
		return err
	}
	defer s.release(l)
	reflog, err := s.store.Reflog(ctx, id)
	if err != nil {
		return err
	}
	i := slices.IndexFunc(reflog, func(e tree.RefEntry) bool { return e.ID == entry })
	if i < 0 {
		return apperr.Errorf(apperr.NotFound, "There is no reflog entry %d in this conversation.", entry)
	}
	l.lock()
	defer l.mu.Unlock()
	e := reflog[i]
	return s.moveHeadLocked(ctx, l, l.idx.NewestUnder(e.Head), tree.Move{Action: tree.ActRecover, Detail: "the state after " + string(e.Action) + " " + e.Detail})
}

// heads returns the heads of the reflog's entries, in its order.
func heads(reflog []tree.RefEntry) []int64 {
	out := make([]int64, len(reflog))
	for i, e := range reflog {
		out[i] = e.Head
	}
	return out
}
