package chat

import (
	"cmp"
	"context"
	"slices"

	"github.com/sweatpants-go/sweatpants/backend/apperr"
	"github.com/sweatpants-go/sweatpants/backend/tree"
)

// A tree view is what one open inspector shows of the tree: it remembers
// what it drew, so that a change is sent as a few nodes and marks instead
// of the whole tree again.

// treeView is what one inspector was last shown of a conversation's tree.
// It takes v.conv.mu as it is, without writing a held answer first (as lock
// does): an open inspector never costs a turn a commit of its own, and a
// held answer shows once it is written.
type treeView struct {
	conv *conversation
	id   string
	at   *tree.RefEntry // the reflog entry inspected; nil for HEAD

	drawn   bool
	newest  int64 // the newest node shown
	count   int
	head    int64
	tip     int64        // the end of the marked path: HEAD, or the inspected state
	turn    turnState    // what the running turn does, as the legend says
	entries []shownEntry // newest first
}

// turnState is what the conversation's turn does, as the inspector's legend
// says it.
type turnState string

const (
	turnNone    turnState = ""
	turnRunning turnState = "running"
	turnWaiting turnState = "waiting" // for the user to answer
)

// turnStateLocked says what the turn does. c.mu is held.
func (c *conversation) turnStateLocked() turnState {
	switch {
	case !c.running():
		return turnNone
	case len(c.queueLocked()) > 0:
		return turnWaiting
	}
	return turnRunning
}

// shownEntry is a reflog row as shown.
type shownEntry struct {
	id      int64
	current bool
	here    bool // the one row marked as HEAD's
}

// reflogMarksLocked returns the reflog's rows as they are to be shown:
// which entries' states are HEAD's, and the newest of them, the move HEAD's
// state came from, as the one row marked. c.mu is held.
func (c *conversation) reflogMarksLocked(reflog []tree.RefEntry) []shownEntry {
	current := c.idx.CurrentEntries(c.path, heads(reflog))
	shown := make([]shownEntry, len(reflog))
	here := false
	for i, e := range reflog {
		shown[i] = shownEntry{id: e.ID, current: current[i], here: current[i] && !here}
		here = here || current[i]
	}
	return shown
}

// showEntriesLocked puts entries, marked as shown, into in: their marks and
// the nodes they moved HEAD to. c.mu is held.
func (c *conversation) showEntriesLocked(in *Inspection, entries []tree.RefEntry, shown []shownEntry) {
	if in.Current == nil {
		in.Current = make(map[int64]bool, len(entries))
	}
	if in.Targets == nil {
		in.Targets = make(map[int64]tree.Node, len(entries))
	}
	for i, e := range entries {
		in.Current[e.ID] = shown[i].current
		if shown[i].here {
			in.Here = e.ID
		}
		if n, ok := c.idx.Node(e.Head); ok {
			in.Targets[e.Head] = n
		}
	}
}

// newTreeView returns a view of c that has shown nothing yet; at, when not
// zero, is the reflog entry to inspect.
func newTreeView(ctx context.Context, c *conversation, at int64) (treeView, error) {
	v := treeView{conv: c, id: c.conv.ID}
	if at == 0 {
		return v, nil
	}
	reflog, err := c.svc.store.Reflog(ctx, v.id)
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
	c := v.conv
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.idx.Len() != v.count || c.conv.Head != v.head || c.turnStateLocked() != v.turn
}

// all returns the whole inspection and takes it as shown.
//
// Like changes, it reads the reflog between two holds of the lock: an entry
// is written with the change it logs, under the lock, so every entry of a
// change seen under the first hold is in the reflog read after it; an entry
// written later comes with a change this view has not taken as shown, and
// the watch is woken for it.
func (v *treeView) all(ctx context.Context) (Inspection, error) {
	c := v.conv
	c.mu.Lock()
	in := v.snapshotLocked()
	c.mu.Unlock()
	reflog, err := c.svc.store.Reflog(ctx, v.id)
	if err != nil {
		return Inspection{}, err
	}
	if v.at != nil && !slices.ContainsFunc(reflog, func(e tree.RefEntry) bool { return e.ID == v.at.ID }) {
		return Inspection{}, apperr.Errorf(apperr.NotFound, "There is no reflog entry %d in this conversation any more.", v.at.ID)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	in.Reflog = reflog
	v.entries = c.reflogMarksLocked(reflog)
	c.showEntriesLocked(&in, reflog, v.entries)
	return in, nil
}

// snapshotLocked copies the whole tree and takes it as shown; v.conv.mu is held.
func (v *treeView) snapshotLocked() Inspection {
	c := v.conv
	in := Inspection{
		Conversation: c.conv,
		Nodes:        make(map[int64]tree.Node, c.idx.Len()),
		Children:     make(map[int64][]int64, c.idx.Len()),
		Count:        c.idx.Len(),
		Running:      c.running(),
		Waiting:      c.turnStateLocked() == turnWaiting,
		Retention:    retention(),
		At:           v.at,
		OnPath:       map[int64]bool{},
	}
	in.HeadNode, _ = c.idx.Node(c.conv.Head)
	var newest int64
	for k, n := range c.idx.Nodes() {
		in.Nodes[k] = n
		newest = max(newest, k)
		if kids := c.idx.Children(k); len(kids) > 0 {
			in.Children[k] = slices.Clone(kids)
		}
	}
	if roots := c.idx.Children(0); len(roots) > 0 {
		in.Children[0] = slices.Clone(roots)
	}
	tip := c.conv.Head
	if v.at != nil {
		tip = 0
		if _, ok := c.idx.Node(v.at.Head); ok {
			tip = c.idx.NewestUnder(v.at.Head)
		}
	}
	in.Path = c.idx.PathTo(tip)
	for _, n := range in.Path {
		in.OnPath[n.ID] = true
	}
	v.drawn, v.newest, v.count, v.head, v.tip, v.turn = true, newest, c.idx.Len(), c.conv.Head, tip, c.turnStateLocked()
	return in
}

// changes returns what changed since the view was last shown and takes it
// as shown; resync says nodes may have gone (every one is then looked at).
func (v *treeView) changes(ctx context.Context, resync bool) (TreeChange, error) {
	if !v.drawn {
		return v.redraw(ctx)
	}
	c := v.conv
	c.mu.Lock()
	ch, grown, ok := v.growLocked(resync)
	c.mu.Unlock()
	if !ok {
		return v.redraw(ctx)
	}
	if !grown && !resync {
		return ch, nil
	}
	reflog, err := c.svc.store.Reflog(ctx, v.id)
	if err != nil {
		return TreeChange{}, err
	}
	c.mu.Lock()
	ok = v.reflogLocked(&ch, reflog)
	c.mu.Unlock()
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
// or the tree was empty. v.conv.mu is held.
func (v *treeView) growLocked(resync bool) (ch TreeChange, grown, ok bool) {
	c := v.conv
	head, turn := c.conv.Head, c.turnStateLocked()
	if !resync && c.idx.Len() == v.count && head == v.head && turn == v.turn {
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
			if c.idx.Under(fresh[i].ID, v.at.Head) {
				tip = fresh[i].ID
				break
			}
		}
	}
	in := &ch.In
	*in = Inspection{Conversation: c.conv, Nodes: map[int64]tree.Node{}, Children: map[int64][]int64{},
		Count: c.idx.Len(), Running: turn != turnNone, Waiting: turn == turnWaiting, Retention: retention(), At: v.at, OnPath: map[int64]bool{}, Current: map[int64]bool{}}
	in.HeadNode, _ = c.idx.Node(head)
	onTip := c.path.Contains
	if v.at != nil {
		in.Path = c.idx.PathTo(tip)
		onTip = tree.Path(in.Path).Contains
	}
	p := patcher{conv: c, newest: v.newest, in: in, onTip: onTip, drawn: map[int64]bool{}}
	if !p.place(fresh) {
		return ch, false, false
	}
	ch.Growths = p.growths

	if tip != v.tip || head != v.head {
		leave, join := c.idx.PathDiff(v.tip, tip)
		marked := slices.Concat(leave, join) // on the path or off it now
		if head != v.head {
			marked = append(marked, v.head, head)
		}
		slices.Sort(marked)
		for _, id := range slices.Compact(marked) {
			if n, ok := c.idx.Node(id); ok && id <= v.newest && !p.drawn[id] {
				ch.Marked = append(ch.Marked, id)
				in.Nodes[id] = n
				in.OnPath[id] = onTip(id)
			}
		}
		if v.at != nil && tip != v.tip {
			if len(leave) == 0 {
				for _, id := range slices.Backward(join) {
					n, _ := c.idx.Node(id)
					ch.PathAdded = append(ch.PathAdded, n)
				}
			} else {
				ch.PathRedrawn = true
			}
		}
	}
	ch.Legend = c.idx.Len() != v.count || head != v.head || turn != v.turn
	grown = len(fresh) > 0 || head != v.head
	if len(fresh) > 0 {
		v.newest = fresh[len(fresh)-1].ID
	}
	v.count, v.head, v.tip, v.turn = c.idx.Len(), head, tip, turn
	return ch, grown, true
}

// freshLocked returns the nodes newer than the newest shown, oldest first,
// or false when nodes shown are gone. Unless scan is set it looks first at
// the end of HEAD's path, where new nodes mostly are. v.conv.mu is held.
func (v *treeView) freshLocked(scan bool) ([]tree.Node, bool) {
	c := v.conv
	var fresh []tree.Node
	if !scan {
		for i := len(c.path) - 1; i >= 0 && c.path[i].ID > v.newest; i-- {
			fresh = append(fresh, c.path[i])
		}
		if len(fresh) == c.idx.Len()-v.count {
			slices.Reverse(fresh)
			return fresh, true
		}
		fresh = fresh[:0]
	}
	old := 0
	for id, n := range c.idx.Nodes() {
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

// reflogLocked adds to ch the reflog entries that are new and those whose
// current mark changed, and takes them as shown; it reports false when
// entries shown are gone. v.conv.mu is held.
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
	c := v.conv
	shown := c.reflogMarksLocked(reflog)
	ch.Entries = reflog[:k]
	c.showEntriesLocked(&ch.In, ch.Entries, shown[:k])
	for i, e := range v.entries {
		if now := shown[k+i]; now != e {
			ch.Flipped = append(ch.Flipped, reflog[k+i])
			c.showEntriesLocked(&ch.In, reflog[k+i:k+i+1], shown[k+i:k+i+1])
		}
	}
	v.entries = shown
	return true
}

// heads returns the heads of the reflog's entries, in its order.
func heads(reflog []tree.RefEntry) []int64 {
	out := make([]int64, len(reflog))
	for i, e := range reflog {
		out[i] = e.Head
	}
	return out
}
