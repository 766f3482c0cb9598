package inspector

import (
	"slices"

	"github.com/sweatpants-go/sweatpants/internal/tree"
)

// The patcher works out how an open inspector's drawing of the tree grows
// when nodes come: which chains extend, where a fork appears, what is drawn
// anew.

// patcher works out where new nodes go in the drawn tree, collecting in in
// what the growths draw. Nodes up to newest are drawn already.
type patcher struct {
	idx     *tree.Index
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
		kids := p.idx.Children(parent)
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
			if end := p.chainEnd(added[0]); len(p.idx.Children(end)) >= 2 {
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
				id = p.idx.Children(id)[0]
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
		p.in.Children[g.Node] = slices.Clone(p.idx.Children(g.Node))
	}
	for _, r := range roots {
		p.draw(r)
	}
}

// draw puts the subtree from id in the inspection, with the nodes the
// summaries among it stand for.
func (p *patcher) draw(id int64) {
	in := p.in
	stack := []int64{id}
	for len(stack) > 0 {
		id := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		n, _ := p.idx.Node(id)
		p.drawn[id] = true
		in.Nodes[id] = n
		in.OnPath[id] = p.onTip(id)
		in.Children[id] = slices.Clone(p.idx.Children(id))
		stack = append(stack, p.idx.Children(id)...)
		if n.Kind == tree.Summary {
			s, _ := tree.Decode[tree.SummaryRecord](n)
			for _, covered := range s.Covers {
				if cn, ok := p.idx.Node(covered); ok {
					in.Nodes[covered] = cn
				}
			}
		}
	}
}

// oldKids returns how many children node id had when it was last shown.
func (p *patcher) oldKids(id int64) int {
	n, _ := slices.BinarySearch(p.idx.Children(id), p.newest+1)
	return n
}

// chainEnd returns the last node of the chain from id, as the tree is now.
func (p *patcher) chainEnd(id int64) int64 {
	for len(p.idx.Children(id)) == 1 {
		id = p.idx.Children(id)[0]
	}
	return id
}

// block returns the first node of the chain node id was drawn in: the
// branch it is in starts there.
func (p *patcher) block(id int64) int64 {
	for {
		n, _ := p.idx.Node(id)
		parent := n.Parent
		if parent == 0 || p.oldKids(parent) != 1 {
			return id
		}
		id = parent
	}
}
