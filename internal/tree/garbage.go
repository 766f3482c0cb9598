package tree

import "time"

// Garbage is what a collection removes from a conversation indexed by x:
// the reflog entries older than cutoff, and the nodes older than cutoff
// that are neither on path (HEAD's branch, with its side questions) nor
// on the branch of a reflog entry that stays. Young nodes stay, and so do
// their ancestors.
func (x *Index) Garbage(path Path, reflog []RefEntry, cutoff time.Time) (nodes, entries []int64) {
	var heads []int64
	for _, e := range reflog {
		if e.At.Before(cutoff) {
			entries = append(entries, e.ID)
		} else {
			heads = append(heads, e.Head)
		}
	}
	keep := x.Reachable(path, heads, func(n Node) bool { return !n.At.Before(cutoff) })
	for id := range x.Nodes() {
		if !keep[id] {
			nodes = append(nodes, id)
		}
	}
	return nodes, entries
}
