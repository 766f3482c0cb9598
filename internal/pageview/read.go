package pageview

import (
	"slices"

	"github.com/sweatpants-go/sweatpants/internal/tree"
)

// Live is what a conversation's pages show that only the running
// conversation knows; package chat answers it under the conversation's lock.
type Live interface {
	Recorded
	// Question adds to a question what only the running conversation
	// knows: the last submission refused, the progress its implementation
	// reported, and its place in the queue.
	Question(e *ElicitView)
	// SideDraft is the reply a side question's turn streams, while it works.
	SideDraft(q int64) (draft string, working bool)
	// Waiting reports whether a question of the flow waits for an answer.
	Waiting() bool
}

// Reader reads a conversation as its pages show it: its tree (Index), the
// branch to HEAD (Path) and its live state. It is read under the
// conversation's lock and kept no longer than one reading.
type Reader struct {
	Index *tree.Index
	Path  tree.Path
	Live  Live
}

// Items are the branch to HEAD as shown: its items, each side question's
// thread after the node it was asked from, each edited message and answered
// question placed among its alternatives.
func (r Reader) Items() []Item {
	items := r.withSides(Items(r.Path, r.Live))
	answers := map[string]tree.Node{}
	for _, n := range r.Path {
		if n.Kind == tree.ElicitResponse {
			answers[n.Ref] = n
		}
	}
	answer := func(eid string) (tree.Node, bool) { n, ok := answers[eid]; return n, ok }
	for i := range items {
		it := &items[i]
		if it.Elicit != nil {
			r.Live.Question(it.Elicit)
		}
		it.Branch = r.branchOf(it, answer)
		it.Continued = it.Kind == tree.Stopped && r.Index.Continues(it.ID)
		if it.Kind == tree.AssistantMessage {
			it.Rated, it.ReplyNode = true, it.ID
			if f, _, ok := r.Index.FeedbackOn(it.ID); ok {
				it.Feedback = &f
			}
		}
	}
	return items
}

// Node is the item node n, just recorded at the end of the path, shows as,
// if it shows as one.
func (r Reader) Node(n tree.Node) (Item, bool) {
	items := Items([]tree.Node{n}, r.Live)
	if len(items) != 1 {
		return Item{}, false
	}
	if items[0].Elicit != nil {
		r.Live.Question(items[0].Elicit)
	}
	if items[0].Kind == tree.AssistantMessage {
		items[0].Rated, items[0].ReplyNode = true, n.ID
	}
	return items[0], true
}

// Question is the item of elicit eid on the path, read from the nodes that
// concern it alone.
func (r Reader) Question(eid string) (Item, bool) {
	req, ok := r.Index.NewestOnPath(r.Path, eid, tree.ElicitRequest)
	if !ok {
		return Item{}, false
	}
	nodes := []tree.Node{req}
	answer := func(eid string) (tree.Node, bool) { return r.Index.NewestOnPath(r.Path, eid, tree.ElicitResponse) }
	if resp, ok := answer(eid); ok {
		nodes = append(nodes, resp)
	}
	items := Items(nodes, r.Live)
	if len(items) == 0 {
		return Item{}, false
	}
	it := items[0]
	r.Live.Question(it.Elicit)
	it.Branch = r.branchOf(&it, answer)
	return it, true
}

// Side is the item of the side question n belongs to (n is the question,
// or a node under it).
func (r Reader) Side(n tree.Node) (Item, bool) {
	q, ok := r.Index.SideRoot(n)
	if !ok {
		return Item{}, false
	}
	m, _ := tree.Decode[tree.Message](q)
	it := Item{ID: q.ID, Kind: tree.SideQuestion, Text: m.Text}
	last := q.ID // the last node of q's own turn
	if end, ok := r.Index.SideEnd(q.ID); ok {
		em, _ := tree.Decode[tree.Message](end)
		it.Reply, it.Replied, it.Details, it.Ended, it.Partial = em.Text, true, em.Details, end.Kind, em.Partial
		it.Continuable = len(r.Index.Sides(end.ID)) == 0 && r.Live.Waiting()
		last = end.ID
		if end.Kind == tree.SideReply {
			it.Rated, it.ReplyNode = true, end.ID
			if f, _, ok := r.Index.FeedbackOn(end.ID); ok {
				it.Feedback = &f
			}
		}
	} else if draft, working := r.Live.SideDraft(q.ID); working {
		// Its turn works: its questions are those of the version it
		// works on, the newest (tree.Index.SideTip).
		it.Draft, it.Working = draft, true
		last = r.Index.SideTip(q.ID)
	}
	it.Asks = r.sideAsks(q, last)
	// The thread hangs from the parent of its first question: climb from
	// side question to side question until the parent is on no side branch.
	for root := q; ; {
		p, ok := r.Index.Node(root.Parent)
		if !ok {
			break
		}
		if up, side := r.Index.SideRoot(p); side {
			root = up
			continue
		}
		it.Anchor, it.WhileWaiting = p.ID, p.Kind == tree.ElicitRequest
		break
	}
	return it, true
}

// sideAsks returns the items of the questions side question q's turn asked
// the user, on its branch up to last.
func (r Reader) sideAsks(q tree.Node, last int64) []Item {
	if last == q.ID {
		return nil
	}
	branch := r.Index.PathTo(last)
	var asks []tree.Node
	for _, n := range branch[slices.IndexFunc(branch, func(n tree.Node) bool { return n.ID == q.ID })+1:] {
		if n.Kind == tree.ElicitRequest || n.Kind == tree.ElicitResponse {
			asks = append(asks, n)
		}
	}
	if len(asks) == 0 {
		return nil
	}
	items := Items(asks, r.Live)
	for i := range items {
		if items[i].Elicit != nil {
			r.Live.Question(items[i].Elicit)
		}
	}
	return items
}

// withSides inserts, after the item of each path node, the side questions
// of the thread asked from it.
func (r Reader) withSides(items []Item) []Item {
	var out []Item
	at := map[int64]int{} // path node id → index in items of the last item at or before it
	i := 0
	for _, n := range r.Path {
		for i < len(items) && items[i].ID <= n.ID {
			i++
		}
		at[n.ID] = i
	}
	pos := 0
	for _, n := range r.Path {
		var sides []Item
		for _, q := range r.Index.SideThread(n.ID) {
			if it, ok := r.Side(q); ok && !r.Path.Contains(q.ID) { // a continued thread is the path's
				sides = append(sides, it)
			}
		}
		if len(sides) == 0 {
			continue
		}
		out = append(out, items[pos:at[n.ID]]...)
		pos = at[n.ID]
		out = append(out, sides...)
	}
	return append(out, items[pos:]...)
}

// branchOf places an item among its alternatives, or returns nil when it
// has none. For a question it is the answer on the path that counts, which
// answer finds.
func (r Reader) branchOf(it *Item, answer func(eid string) (tree.Node, bool)) *Branch {
	n, ok := r.Index.Node(it.ID)
	if !ok {
		return nil
	}
	if n.Kind == tree.ElicitRequest {
		if n, ok = answer(n.Ref); !ok {
			return nil
		}
	} else if n.Kind != tree.UserMessage {
		return nil
	}
	alts := r.Index.Alternatives(n)
	if len(alts) < 2 {
		return nil
	}
	i := slices.Index(alts, n.ID)
	b := &Branch{Index: i + 1, Count: len(alts)}
	if i > 0 {
		b.Prev = alts[i-1]
	}
	if i+1 < len(alts) {
		b.Next = alts[i+1]
	}
	return b
}
