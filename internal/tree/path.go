package tree

import (
	"cmp"
	"slices"
	"strings"
)

// Path is the nodes from a root down to one node, in order: the branch as
// the user sees it when that node is HEAD. A parent is always older than
// its children, so node ids increase along a path, which lets Contains
// search it instead of scanning it.
type Path []Node

// Head returns the id of the path's last node, the one the path leads to,
// or 0 for an empty path.
func (p Path) Head() int64 {
	if len(p) == 0 {
		return 0
	}
	return p[len(p)-1].ID
}

// Contains reports whether node id is on the path. It costs a binary
// search, so callers may ask it for every node they look at.
func (p Path) Contains(id int64) bool {
	_, found := slices.BinarySearchFunc(p, id, func(n Node, id int64) int { return cmp.Compare(n.ID, id) })
	return found
}

// NewestOnPath returns the newest node of kind that carries ref and is on
// p, such as the request or the answer of an elicit on HEAD's branch. It
// looks only at the nodes that carry ref, newest first, so it costs the
// same however long the conversation grows.
func (x *Index) NewestOnPath(p Path, ref string, kind Kind) (Node, bool) {
	ids := x.byRef[ref]
	for i := len(ids) - 1; i >= 0; i-- {
		if n, ok := x.nodes[ids[i]]; ok && n.Kind == kind && p.Contains(n.ID) {
			return n, true
		}
	}
	return Node{}, false
}

// Node returns the node id on the path, found by a binary search.
func (p Path) Node(id int64) (Node, bool) {
	i, found := slices.BinarySearchFunc(p, id, func(n Node, id int64) int { return cmp.Compare(n.ID, id) })
	if !found {
		return Node{}, false
	}
	return p[i], true
}

// TurnText is the text of the turn that the user message p[i] starts: its
// own, after those of the messages it joined (user messages right before
// it, whose turns went away before recording anything).
func (p Path) TurnText(i int) string {
	j := i
	for j > 0 && p[j-1].Kind == UserMessage {
		j--
	}
	texts := make([]string, 0, i-j+1)
	for _, n := range p[j : i+1] {
		m, _ := Decode[Message](n)
		texts = append(texts, m.Text)
	}
	return strings.Join(texts, "\n\n")
}
