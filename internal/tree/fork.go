package tree

// Tried returns nodes, a turn's record on its branch, with the nodes of
// the branches its code tried and went back from (agents.Fork): a
// ForkEnd that went back stands beside its Fork, and the tried branch's
// calls are off the path, yet a replay of the turn runs the tried block
// again and must find them. Branches tried within a tried branch are
// found as well.
func (x *Index) Tried(nodes []Node) []Node {
	out := nodes
	for i := 0; i < len(out); i++ {
		n := out[i]
		if n.Kind != ForkEnd {
			continue
		}
		rec, err := Decode[ForkEndRecord](n)
		if err != nil || rec.Forward {
			continue
		}
		tried := x.PathTo(rec.Tip)
		for j, m := range tried {
			if m.ID == rec.Fork {
				if len(out) == len(nodes) {
					out = append([]Node(nil), nodes...) // nodes is the caller's
				}
				out = append(out, tried[j:]...)
				break
			}
		}
	}
	return out
}
