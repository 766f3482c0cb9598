package inspector

import (
	"cmp"
	"context"
	"slices"

	"github.com/sweatpants-go/sweatpants/internal/apperr"
	"github.com/sweatpants-go/sweatpants/internal/feed"
	"github.com/sweatpants-go/sweatpants/internal/tree"
)

// A view is what one open inspector shows of the tree: it remembers what
// it drew, so that a change is sent as a few nodes and marks instead of the
// whole tree again.

// view is what one inspector was last shown of a conversation's tree. It
// looks at the conversation through its follower (feed.Follower.Look).
type view struct {
	f    *feed.Follower
	at   *tree.RefEntry // the reflog entry inspected; nil for HEAD
	node int64          // the node picked to show the agents' state at; 0 for none

	drawn   bool
	newest  int64 // the newest node shown
	count   int
	head    int64
	tip     int64          // the end of the marked path: HEAD, or the inspected state
	turn    feed.TurnState // what the running turn does, as the legend says
	entries []shownEntry   // newest first
	state   []AgentState   // the agents' state shown
	// selOnPath is whether the node picked was shown on the marked path.
	selOnPath bool
	// ends are the ForkEnd nodes of the tree by the Fork node they end;
	// fates are the Fork nodes, each with the fate it was shown with
	// (tried.go).
	ends  map[int64][]tree.Node
	fates map[int64]string
}

// shownEntry is a reflog row as shown.
type shownEntry struct {
	id      int64
	current bool
	here    bool // the one row marked as HEAD's
}

// reflogMarks returns the reflog's rows as they are to be shown: which
// entries' states are HEAD's, and the newest of them, the move HEAD's state
// came from, as the one row marked.
func reflogMarks(l feed.Live, reflog []tree.RefEntry) []shownEntry {
	current := l.Index.CurrentEntries(l.Path, states(reflog))
	shown := make([]shownEntry, len(reflog))
	here := false
	for i, e := range reflog {
		shown[i] = shownEntry{id: e.ID, current: current[i], here: current[i] && !here}
		here = here || current[i]
	}
	return shown
}

// showEntries puts entries, marked as shown, into in: their marks and the
// nodes they moved HEAD to.
func showEntries(l feed.Live, in *Inspection, entries []tree.RefEntry, shown []shownEntry) {
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
		if n, ok := l.Index.Node(e.Head); ok {
			in.Targets[e.Head] = n
		}
	}
}

// newView returns a view of f's conversation that has shown nothing yet,
// of what q asks.
func newView(ctx context.Context, f *feed.Follower, q Query) (view, error) {
	v := view{f: f, node: q.Node}
	if q.Node != 0 {
		var ok bool
		f.Look(func(l feed.Live) { _, ok = l.Index.Node(q.Node) })
		if !ok {
			return view{}, noNode(q.Node)
		}
	}
	at := q.At
	if at == 0 {
		return v, nil
	}
	reflog, err := f.Reflog(ctx)
	if err != nil {
		return view{}, err
	}
	i := slices.IndexFunc(reflog, func(e tree.RefEntry) bool { return e.ID == at })
	if i < 0 {
		return view{}, apperr.Errorf(apperr.NotFound, "There is no reflog entry %d in this conversation.", at)
	}
	v.at = &reflog[i]
	return v, nil
}

// moved reports whether the tree may differ from what was shown: a node
// came (none leaves without a resync), HEAD moved, or a turn started or
// ended.
func (v *view) moved() (moved bool) {
	v.f.Look(func(l feed.Live) {
		moved = l.Index.Len() != v.count || l.Conversation.Head != v.head || l.Turn != v.turn
	})
	return moved
}

// all returns the whole inspection and takes it as shown.
//
// Like changes, it reads the reflog between two holds of the lock: an entry
// is written with the change it logs, under the lock, so every entry of a
// change seen under the first hold is in the reflog read after it; an entry
// written later comes with a change this view has not taken as shown, and
// the watch is woken for it.
func (v *view) all(ctx context.Context) (Inspection, error) {
	var in Inspection
	v.f.Look(func(l feed.Live) { in = v.snapshot(l) })
	reflog, err := v.f.Reflog(ctx)
	if err != nil {
		return Inspection{}, err
	}
	if v.at != nil && !slices.ContainsFunc(reflog, func(e tree.RefEntry) bool { return e.ID == v.at.ID }) {
		return Inspection{}, apperr.Errorf(apperr.NotFound, "There is no reflog entry %d in this conversation any more.", v.at.ID)
	}
	if v.node != 0 && in.Selected.ID == 0 {
		return Inspection{}, noNode(v.node)
	}
	v.f.Look(func(l feed.Live) {
		in.Reflog = reflog
		v.entries = reflogMarks(l, reflog)
		showEntries(l, &in, reflog, v.entries)
	})
	return in, nil
}

// snapshot copies the whole tree and takes it as shown.
func (v *view) snapshot(l feed.Live) Inspection {
	x := l.Index
	in := Inspection{
		Conversation: l.Conversation,
		Nodes:        make(map[int64]tree.Node, x.Len()),
		Children:     make(map[int64][]int64, x.Len()),
		Count:        x.Len(),
		Running:      l.Turn != feed.TurnIdle,
		Waiting:      l.Turn == feed.TurnWaiting,
		Retention:    v.f.Retention(),
		At:           v.at,
		OnPath:       map[int64]bool{},
	}
	head := l.Conversation.Head
	in.HeadNode, _ = x.Node(head)
	var newest int64
	v.ends, v.fates = map[int64][]tree.Node{}, map[int64]string{}
	for k, n := range x.Nodes() {
		in.Nodes[k] = n
		newest = max(newest, k)
		v.noteNode(n)
		if kids := x.Children(k); len(kids) > 0 {
			in.Children[k] = slices.Clone(kids)
		}
	}
	if roots := x.Children(0); len(roots) > 0 {
		in.Children[0] = slices.Clone(roots)
	}
	tip := head
	if v.at != nil {
		tip = 0
		// Where recovering the entry would take HEAD (chat's Recover).
		if _, ok := x.Node(v.at.State()); ok {
			tip = x.FlowTip(v.at.State())
		}
	}
	in.Path = x.PathTo(tip)
	for _, n := range in.Path {
		in.OnPath[n.ID] = true
	}
	v.showState(x, &in, in.Path, tree.Path(in.Path).Contains)
	v.showEnds(&in, where{onPath: tree.Path(in.Path).Contains, onHead: l.Path.Contains, running: l.Turn != feed.TurnIdle})
	v.drawn, v.newest, v.count, v.head, v.tip, v.turn = true, newest, x.Len(), head, tip, l.Turn
	wholeSamples(x, &in)
	methodCalls(x, &in)
	return in
}

// wholeSamples puts into in the records of the model calls among its
// nodes, with their whole requests rebuilt from x, oldest first, so that
// each call of a loop is rebuilt from the one before.
func wholeSamples(x *tree.Index, in *Inspection) {
	var ids []int64
	for id, n := range in.Nodes {
		if n.Kind == tree.Sample {
			ids = append(ids, id)
		}
	}
	if len(ids) == 0 {
		return
	}
	slices.Sort(ids)
	in.Samples = make(map[int64]Sample, len(ids))
	var reqs tree.Requests
	for _, id := range ids {
		n := in.Nodes[id]
		rec, err := tree.Decode[tree.SampleRecord](n)
		s := Sample{Record: rec, Base: rec.Base, Kept: rec.Kept, New: len(rec.Request.Messages), SameTools: rec.SameTools}
		switch {
		case err != nil:
			s.Record.Error = "The record of this call does not read: " + err.Error()
		case rec.Base == 0:
			reqs.Remember(id, rec.Request) // a later call may continue it
		default:
			if s.Record, err = reqs.Whole(n, x.Node); err != nil {
				s.Record = rec
				s.Record.Error = "The record of this call does not read: " + err.Error()
			}
		}
		in.Samples[id] = s
	}
}

// changes returns what changed since the view was last shown and takes it
// as shown; resync says nodes may have gone (every one is then looked at).
func (v *view) changes(ctx context.Context, resync bool) (TreeChange, error) {
	if !v.drawn {
		return v.redraw(ctx)
	}
	var ch TreeChange
	var grown, ok bool
	v.f.Look(func(l feed.Live) { ch, grown, ok = v.grow(l, resync) })
	if !ok {
		return v.redraw(ctx)
	}
	if !grown && !resync {
		return ch, nil
	}
	reflog, err := v.f.Reflog(ctx)
	if err != nil {
		return TreeChange{}, err
	}
	v.f.Look(func(l feed.Live) { ok = v.addReflog(l, &ch, reflog) })
	if !ok {
		return v.redraw(ctx)
	}
	return ch, nil
}

func (v *view) redraw(ctx context.Context) (TreeChange, error) {
	in, err := v.all(ctx)
	if err != nil {
		return TreeChange{}, err
	}
	return TreeChange{Full: &in}, nil
}

// grow finds the nodes, marks and legend that changed and takes them as
// shown. grown says whether nodes came or HEAD moved (and so the reflog may
// have grown); ok is false when the change is not a patch: nodes went, or
// the tree was empty.
func (v *view) grow(l feed.Live, resync bool) (ch TreeChange, grown, ok bool) {
	x := l.Index
	head, turn := l.Conversation.Head, l.Turn
	if !resync && x.Len() == v.count && head == v.head && turn == v.turn {
		return ch, false, true
	}
	fresh, ok := v.fresh(l, resync)
	if !ok || (v.count == 0 && len(fresh) > 0) {
		return ch, false, false
	}
	tip := head
	if v.at != nil {
		tip = v.tip
		for _, n := range fresh {
			if x.Under(n.ID, v.at.State()) { // the entry's branch grew: where it got, as Recover finds it
				tip = x.FlowTip(v.at.State())
				break
			}
		}
	}
	in := &ch.In
	*in = Inspection{Conversation: l.Conversation, Nodes: map[int64]tree.Node{}, Children: map[int64][]int64{},
		Count: x.Len(), Running: turn != feed.TurnIdle, Waiting: turn == feed.TurnWaiting, Retention: v.f.Retention(), At: v.at, OnPath: map[int64]bool{}, Current: map[int64]bool{}}
	in.HeadNode, _ = x.Node(head)
	onTip := l.Path.Contains
	if v.at != nil {
		in.Path = x.PathTo(tip)
		onTip = tree.Path(in.Path).Contains
	}
	p := patcher{idx: x, newest: v.newest, in: in, onTip: onTip, drawn: map[int64]bool{}}
	if !p.place(fresh) {
		return ch, false, false
	}
	ch.Growths = p.growths

	var marked []int64
	for _, n := range fresh {
		// A tried block's Fork node, drawn already, says now how it ended.
		v.noteNode(n)
	}
	// A Fork node drawn already whose block stands otherwise now: an end
	// came, HEAD moved to or from one, or the turn trying it ended.
	w := where{onPath: onTip, onHead: l.Path.Contains, running: turn != feed.TurnIdle}
	for _, f := range v.refated(w) {
		if !p.drawn[f] {
			marked = append(marked, f)
		}
	}
	if tip != v.tip || head != v.head {
		leave, join := x.PathDiff(v.tip, tip)
		marked = append(marked, leave...) // on the path or off it now
		marked = append(marked, join...)
		if head != v.head {
			marked = append(marked, v.head, head)
		}
		if v.at != nil && tip != v.tip {
			if len(leave) == 0 {
				for _, id := range slices.Backward(join) {
					n, _ := x.Node(id)
					ch.PathAdded = append(ch.PathAdded, n)
				}
			} else {
				ch.PathRedrawn = true
			}
		}
	}
	slices.Sort(marked)
	for _, id := range slices.Compact(marked) {
		if n, ok := x.Node(id); ok && id <= v.newest && !p.drawn[id] {
			ch.Marked = append(ch.Marked, id)
			in.Nodes[id] = n
			in.OnPath[id] = onTip(id)
		}
	}
	wholeSamples(x, in)
	methodCalls(x, in)
	tipPath := l.Path
	if v.at != nil {
		tipPath = in.Path
	}
	ch.State = v.showState(x, in, tipPath, onTip)
	v.showEnds(in, w)
	ch.Legend = x.Len() != v.count || head != v.head || turn != v.turn
	grown = len(fresh) > 0 || head != v.head
	if len(fresh) > 0 {
		v.newest = fresh[len(fresh)-1].ID
	}
	v.count, v.head, v.tip, v.turn = x.Len(), head, tip, turn
	return ch, grown, true
}

// fresh returns the nodes newer than the newest shown, oldest first, or
// false when nodes shown are gone. Unless scan is set it looks first at the
// end of HEAD's path, where new nodes mostly are.
func (v *view) fresh(l feed.Live, scan bool) ([]tree.Node, bool) {
	var fresh []tree.Node
	if !scan {
		for i := len(l.Path) - 1; i >= 0 && l.Path[i].ID > v.newest; i-- {
			fresh = append(fresh, l.Path[i])
		}
		if len(fresh) == l.Index.Len()-v.count {
			slices.Reverse(fresh)
			return fresh, true
		}
		fresh = fresh[:0]
	}
	old := 0
	for id, n := range l.Index.Nodes() {
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

// addReflog adds to ch the reflog entries that are new and those whose
// current mark changed, and takes them as shown; it reports false when
// entries shown are gone.
func (v *view) addReflog(l feed.Live, ch *TreeChange, reflog []tree.RefEntry) bool {
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
	shown := reflogMarks(l, reflog)
	ch.Entries = reflog[:k]
	showEntries(l, &ch.In, ch.Entries, shown[:k])
	for i, e := range v.entries {
		if now := shown[k+i]; now != e {
			ch.Flipped = append(ch.Flipped, reflog[k+i])
			showEntries(l, &ch.In, reflog[k+i:k+i+1], shown[k+i:k+i+1])
		}
	}
	v.entries = shown
	return true
}

// states returns the states of the reflog's entries (RefEntry.State), in
// its order: what recovering each brings back.
func states(reflog []tree.RefEntry) []int64 {
	out := make([]int64, len(reflog))
	for i, e := range reflog {
		out[i] = e.State()
	}
	return out
}
