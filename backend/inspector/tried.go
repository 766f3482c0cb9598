package inspector

import "github.com/sweatpants-go/sweatpants/backend/tree"

// Tried blocks (agents.Fork): a Fork node begins a block of agent code
// tried on a child branch, and a ForkEnd node records whether the flow
// adopted it or went back. The inspector shows each Fork node with how its
// block ended, which it learns from the ForkEnd nodes as they come.

// noteEnd remembers n when it is a ForkEnd node, and returns the Fork node
// it ends.
func (v *view) noteEnd(n tree.Node) (int64, bool) {
	if n.Kind != tree.ForkEnd {
		return 0, false
	}
	rec, err := tree.Decode[tree.ForkEndRecord](n)
	if err != nil || rec.Fork == 0 {
		return 0, false
	}
	v.ends[rec.Fork] = n
	return rec.Fork, true
}

// showEnds puts into in how the blocks of the Fork nodes among its nodes
// ended.
func (v *view) showEnds(in *Inspection) {
	for id, n := range in.Nodes {
		if e, ok := v.ends[id]; ok && n.Kind == tree.Fork {
			if in.Ends == nil {
				in.Ends = map[int64]tree.Node{}
			}
			in.Ends[id] = e
		}
	}
}
