package tree

import (
	"cmp"
	"slices"
)

// Index holds the nodes of one conversation in memory, with the links the
// walks over its tree need: each node's children and the nodes that carry
// each Ref. It does no I/O; its owner loads it from the store, adds each
// node as it is recorded and drops the nodes garbage collection removed.
//
// The walks rely on the store's ids growing with time: a node is always
// newer, and so has a larger id, than its parent, and children are kept
// oldest first. An Index is not safe for concurrent use; its owner guards
// it.
type Index struct {
	nodes    map[int64]Node
	children map[int64][]int64  // parent id → child ids, oldest first; 0 → the roots
	byRef    map[string][]int64 // Ref → the nodes that carry it, oldest first
	newest   int64              // the largest id in nodes, 0 if none
}

// NewIndex returns the index of a conversation's nodes, given in id order
// as the store returns them, so that children come out oldest first.
func NewIndex(nodes []Node) *Index {
	x := &Index{
		nodes:    make(map[int64]Node, len(nodes)),
		children: map[int64][]int64{},
		byRef:    map[string][]int64{},
	}
	for _, n := range nodes {
		x.Add(n)
	}
	return x
}

// Add indexes n, a node just recorded. Its id must be larger than every id
// the index holds, as the store's ids are, to keep children and WithRef
// oldest first.
func (x *Index) Add(n Node) {
	if x.nodes == nil {
		x.nodes, x.children, x.byRef = map[int64]Node{}, map[int64][]int64{}, map[string][]int64{}
	}
	x.nodes[n.ID] = n
	x.children[n.Parent] = append(x.children[n.Parent], n.ID)
	if n.Ref != "" {
		x.byRef[n.Ref] = append(x.byRef[n.Ref], n.ID)
	}
	x.newest = max(x.newest, n.ID)
}

// Drop forgets the nodes with the given ids, which garbage collection
// removed: they leave the index, their parents' children and WithRef.
// Unknown ids are ignored. Dropping a node but not its descendants would
// leave them unreachable from the roots; garbage collection never does.
func (x *Index) Drop(ids []int64) {
	gone := make(map[int64]bool, len(ids))
	parents := map[int64]bool{}
	refs := map[string]bool{}
	for _, id := range ids {
		n, ok := x.nodes[id]
		if !ok {
			continue
		}
		gone[id] = true
		parents[n.Parent] = true
		if n.Ref != "" {
			refs[n.Ref] = true
		}
	}
	if len(gone) == 0 {
		return
	}
	// Fresh slices rather than filtering in place: a caller may still hold
	// a list Children or WithRef returned.
	without := func(ids []int64) []int64 {
		return slices.DeleteFunc(slices.Clone(ids), func(id int64) bool { return gone[id] })
	}
	for p := range parents {
		if kids := without(x.children[p]); len(kids) > 0 {
			x.children[p] = kids
		} else {
			delete(x.children, p)
		}
	}
	for ref := range refs {
		if carriers := without(x.byRef[ref]); len(carriers) > 0 {
			x.byRef[ref] = carriers
		} else {
			delete(x.byRef, ref)
		}
	}
	for id := range gone {
		delete(x.nodes, id)
		delete(x.children, id)
	}
	if gone[x.newest] {
		x.newest = 0
		for id := range x.nodes {
			x.newest = max(x.newest, id)
		}
	}
}

// Node returns node id, if the index holds it.
func (x *Index) Node(id int64) (Node, bool) {
	n, ok := x.nodes[id]
	return n, ok
}

// Len returns how many nodes the index holds.
func (x *Index) Len() int { return len(x.nodes) }

// Newest returns the id of the newest node the index holds, or 0 if it is
// empty.
func (x *Index) Newest() int64 { return x.newest }

// Nodes returns every node the index holds, by id. The map is the index's
// own, handed out so that a reader can look at every node without a copy:
// callers must not change it, and copy what they keep.
func (x *Index) Nodes() map[int64]Node { return x.nodes }

// After returns the nodes newer than node id (with a larger id), oldest
// first: what was recorded since id, for a reader that follows the record.
func (x *Index) After(id int64) []Node {
	var out []Node
	if id >= x.newest {
		return nil
	}
	if span := x.newest - id; span <= int64(len(x.nodes)) {
		// The ids after id are fewer than the nodes: looked up one by one,
		// a reader of the newest nodes pays for them alone, not for the
		// whole conversation.
		for nid := id + 1; nid <= x.newest; nid++ {
			if n, ok := x.nodes[nid]; ok {
				out = append(out, n)
			}
		}
		return out
	}
	for nid, n := range x.nodes {
		if nid > id {
			out = append(out, n)
		}
	}
	slices.SortFunc(out, func(a, b Node) int { return cmp.Compare(a.ID, b.ID) })
	return out
}

// Children returns the ids of node id's children, oldest first; id 0
// gives the roots. The slice is the index's own: callers must not change
// it.
func (x *Index) Children(id int64) []int64 { return x.children[id] }

// WithRef returns the ids of the nodes that carry ref, oldest first: an
// elicit's request and its answers, or every record of a call. The slice
// is the index's own: callers must not change it.
func (x *Index) WithRef(ref string) []int64 { return x.byRef[ref] }

// PathTo returns the nodes from the root down to node id: the branch HEAD
// shows when it is at id. It is empty for id 0 or an id the index does not
// hold.
func (x *Index) PathTo(id int64) Path {
	// The path is counted first and filled from its end: a turn takes the
	// path of a conversation however long it grew, and growing the slice
	// and reversing it cost more than the second walk.
	depth := 0
	for at := id; at != 0; depth++ {
		n, ok := x.nodes[at]
		if !ok {
			break
		}
		at = n.Parent
	}
	p := make(Path, depth)
	for i := depth - 1; i >= 0; i-- {
		p[i] = x.nodes[id]
		id = p[i].Parent
	}
	return p
}

// Alternatives returns the versions of n, oldest first, n among them: its
// siblings of the same Kind and Ref. The versions of a user message are
// the messages edited in its place; those of an answer (ElicitResponse)
// are the answers given to the same request. Fewer than two means n is
// not a branch point.
func (x *Index) Alternatives(n Node) []int64 {
	var out []int64
	for _, id := range x.children[n.Parent] {
		if c := x.nodes[id]; c.Kind == n.Kind && c.Ref == n.Ref {
			out = append(out, id)
		}
	}
	return out
}

// NewestUnder returns the newest node of the subtree rooted at id, id
// itself if it has no descendants: where the user left the branch that
// starts at id, and so where HEAD goes when they switch back to it.
func (x *Index) NewestUnder(id int64) int64 { return x.newestUnder(id, nil) }

// newestUnder is the newest node of the subtree rooted at id, walking down
// only into children whose kind follow allows (all, when it is nil).
func (x *Index) newestUnder(id int64, follow func(Kind) bool) int64 {
	newest := id
	stack := []int64{id}
	for len(stack) > 0 {
		n := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		newest = max(newest, n)
		for _, c := range x.children[n] {
			if follow == nil || follow(x.nodes[c].Kind) {
				stack = append(stack, c)
			}
		}
	}
	return newest
}

// Under reports whether node id is in the subtree rooted at top (id itself
// counts). It climbs from id only while the ids are larger than top, since
// an ancestor is always older than its descendants.
func (x *Index) Under(id, top int64) bool {
	for id > top {
		id = x.nodes[id].Parent
	}
	return id == top
}

// PathDiff compares the paths from the root to a and to b: leave are the
// nodes only on a's and join those only on b's, each listed from the end
// up, so that moving HEAD from a to b leaves the first and joins the
// second. Both are empty when a == b.
func (x *Index) PathDiff(a, b int64) (leave, join []int64) {
	for a != b {
		if a > b {
			leave = append(leave, a)
			a = x.nodes[a].Parent
		} else {
			join = append(join, b)
			b = x.nodes[b].Parent
		}
	}
	return leave, join
}

// SideRoot returns the side question n belongs to: n itself if it is a
// SideQuestion, else its nearest ancestor that is one. It reports false
// when n is on no side branch, or its ancestors are not all indexed. Under
// a side thread continued as the flow (Continues), n is on the flow.
func (x *Index) SideRoot(n Node) (Node, bool) {
	for n.Kind != SideQuestion {
		p, ok := x.nodes[n.Parent]
		if !ok || x.Continues(n.ID) {
			return Node{}, false
		}
		n = p
	}
	return n, true
}

// SideEnd returns the node that ended side question q's turn, in its
// current version (see SideTip): a SideReply, or a Stopped or TurnError on
// the side branch. It reports false while that version has not ended. A
// follow-up side question hangs from the end of the one before, and is
// not q's turn.
func (x *Index) SideEnd(q int64) (Node, bool) {
	tip := x.SideTip(q)
	if tip == q {
		return Node{}, false
	}
	switch n := x.nodes[tip]; n.Kind {
	case SideReply, Stopped, TurnError:
		return n, true
	}
	return Node{}, false
}

// SideTip returns where side question q's turn got to: the newest node of
// its own turn, q itself when it has none. A turn has a version for each
// change of an answer it was given (the new answer forks its branch, and
// the turn goes on from it), and the newest version is the current one:
// its nodes are newer than those of the versions before. The follow-ups
// hanging from the turn's end are turns of their own and are not walked,
// nor is the flow that goes on from it once the thread was continued, nor
// the feedback given on its reply.
func (x *Index) SideTip(q int64) int64 {
	tip := q
	stack := slices.Clone(x.children[q])
	for len(stack) > 0 {
		id := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if k := x.nodes[id].Kind; k == SideQuestion || k == Feedback || x.Continues(id) {
			continue
		}
		tip = max(tip, id)
		stack = append(stack, x.children[id]...)
	}
	return tip
}

// SideThread returns the side questions of the thread asked from node id,
// oldest first: the first side question asked from it, then each
// follow-up, which hangs from the end of the one before.
func (x *Index) SideThread(id int64) []Node {
	var out []Node
	var visit func(q Node)
	visit = func(q Node) {
		out = append(out, q)
		if end, ok := x.SideEnd(q.ID); ok {
			for _, next := range x.Sides(end.ID) {
				visit(next)
			}
		}
	}
	for _, q := range x.Sides(id) {
		visit(q)
	}
	return out
}

// Sides returns the side questions asked from node id, oldest first: its
// children of kind SideQuestion. The page shows them after id's item, and
// garbage collection keeps them while id is on HEAD's branch.
func (x *Index) Sides(id int64) []Node {
	var out []Node
	for _, c := range x.children[id] {
		if n := x.nodes[c]; n.Kind == SideQuestion {
			out = append(out, n)
		}
	}
	return out
}

// Reachable returns the ids garbage collection keeps: every node of path
// (HEAD's branch) and the whole subtree of each side question asked from
// it, and the decisions taken, messages queued and feedback given at it; for each head of a reflog entry that has not expired, the head with
// its ancestors and its whole subtree, so that recovering the entry finds
// its branch whole; and every node young says is too young to collect,
// with its ancestors. A nil young keeps no node for its age.
//
// A head the index does not hold is in the set as it is, with nothing
// else; callers compare the set with the nodes they hold.
func (x *Index) Reachable(path Path, heads []int64, young func(Node) bool) map[int64]bool {
	keep := map[int64]bool{}
	// Every kept node has its ancestors kept, so the climb can stop at the
	// first kept one.
	withAncestors := func(id int64) {
		for id != 0 && !keep[id] {
			keep[id] = true
			id = x.nodes[id].Parent
		}
	}
	withSubtree := func(id int64) {
		stack := []int64{id}
		for len(stack) > 0 {
			n := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			keep[n] = true
			stack = append(stack, x.children[n]...)
		}
	}
	for _, n := range path {
		keep[n.ID] = true
		for _, c := range x.children[n.ID] {
			if k := x.nodes[c].Kind; k == SideQuestion || k == Decision || k == Queued || k == Feedback {
				withSubtree(c)
			}
		}
	}
	for _, h := range heads {
		withAncestors(h)
		withSubtree(h)
	}
	if young != nil {
		for _, n := range x.nodes {
			if young(n) {
				withAncestors(n.ID)
			}
		}
	}
	return keep
}

// CurrentEntries reports, for each reflog entry's state in states
// (RefEntry.State), whether it is HEAD's: whether recovering it, which
// moves HEAD to FlowTip of the state, would leave HEAD at the end of path.
// That is FlowTip(state) == path.Head() for each state, worked out without
// walking under every one.
//
// A state is current when it is on path, with no side question or
// decision below it on path (FlowTip walks past neither: the wall), and
// below every node of path that a node newer than HEAD hangs from along
// nodes FlowTip walks (the floor), since FlowTip of the state is then HEAD
// itself.
func (x *Index) CurrentEntries(path Path, states []int64) []bool {
	head := path.Head()
	var wall, floor int64
	for _, n := range path {
		if !flows(n.Kind) {
			wall = n.ID
		}
	}
	if x.newest > head {
		// hangs maps a node off path, climbed already, to the node of
		// path FlowTip reaches it from; -1 when it does not.
		hangs := map[int64]int64{}
		var chain []int64
		for id := range x.nodes {
			if id <= head {
				continue
			}
			chain = chain[:0]
			from := int64(-1)
			for at := id; at != 0; at = x.nodes[at].Parent {
				if path.Contains(at) {
					from = at
					break
				}
				if h, ok := hangs[at]; ok {
					from = h
					break
				}
				chain = append(chain, at)
			}
			for i := len(chain) - 1; i >= 0; i-- { // from path down to id
				if !flows(x.nodes[chain[i]].Kind) {
					from = -1
				}
				hangs[chain[i]] = from
			}
			floor = max(floor, from)
		}
	}
	out := make([]bool, len(states))
	for i, s := range states {
		out[i] = s > floor && s >= wall && path.Contains(s)
	}
	return out
}

// Unsent returns the messages queued while a turn worked (Queued nodes)
// that no user message has sent yet (Message.Queued), oldest first.
func (x *Index) Unsent() []Node {
	var queued []Node
	sent := map[int64]bool{}
	for _, n := range x.nodes {
		switch n.Kind {
		case Queued:
			queued = append(queued, n)
		case UserMessage:
			if m, err := Decode[Message](n); err == nil {
				for _, id := range m.Queued {
					sent[id] = true
				}
			}
		}
	}
	queued = slices.DeleteFunc(queued, func(n Node) bool { return sent[n.ID] })
	slices.SortFunc(queued, func(a, b Node) int { return cmp.Compare(a.ID, b.ID) })
	return queued
}
