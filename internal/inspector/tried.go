package inspector

import (
	"cmp"
	"slices"

	"github.com/sweatpants-go/sweatpants/internal/tree"
)

// Tried blocks (agents.Fork): a Fork node begins a block of agent code
// tried on a child branch, and a ForkEnd node records whether the flow
// adopted it or went back. The inspector shows each Fork node with how its
// block ended, which it learns from the ForkEnd nodes as they come.
//
// A Fork node can have several ends, one per branch that went through it:
// an answer changed inside the block tries it again on a new branch. The
// end shown is the one on the marked path (HEAD's, or the inspected
// state's), so a recovery back to where the block was kept shows it kept;
// off that path, the newest. A block with no end on the path is being
// tried while HEAD's turn runs inside it, and otherwise was left
// undecided: its turn ended, or the conversation went elsewhere.

// The fates a Fork node is shown with (Inspection.Ends, Undecided).
const (
	fateTrying    = "trying"
	fateAdopted   = "adopted"
	fateAbandoned = "abandoned"
	fateUndecided = "undecided"
)

// noteNode remembers n when it is a Fork node or a ForkEnd node, and
// returns the Fork node a ForkEnd ends.
func (v *view) noteNode(n tree.Node) (int64, bool) {
	switch n.Kind {
	case tree.Fork:
		if _, ok := v.fates[n.ID]; !ok {
			v.fates[n.ID] = "" // not shown yet
		}
	case tree.ForkEnd:
		rec, err := tree.Decode[tree.ForkEndRecord](n)
		if err != nil || rec.Fork == 0 {
			return 0, false
		}
		v.ends[rec.Fork] = append(v.ends[rec.Fork], n)
		return rec.Fork, true
	}
	return 0, false
}

// where says what a block's fate is read against: the marked path, HEAD's
// path, and whether HEAD's turn runs.
type where struct {
	onPath, onHead func(int64) bool
	running        bool
}

// fate returns how the block Fork node fork began stands, and the end
// that says so (zero when none does).
func (v *view) fate(fork int64, w where) (string, tree.Node) {
	ends := v.ends[fork]
	if i := slices.IndexFunc(ends, func(e tree.Node) bool { return w.onPath(e.ID) }); i >= 0 {
		return endFate(ends[i]), ends[i]
	}
	if w.running && w.onHead(fork) && !slices.ContainsFunc(ends, func(e tree.Node) bool { return w.onHead(e.ID) }) {
		return fateTrying, tree.Node{}
	}
	if !w.onPath(fork) && len(ends) > 0 {
		newest := slices.MaxFunc(ends, func(a, b tree.Node) int { return cmp.Compare(a.ID, b.ID) })
		return endFate(newest), newest
	}
	return fateUndecided, tree.Node{}
}

func endFate(e tree.Node) string {
	if rec, _ := tree.Decode[tree.ForkEndRecord](e); rec.Forward {
		return fateAdopted
	}
	return fateAbandoned
}

// refated returns the Fork nodes shown (up to newest) whose fate is no
// longer the one they were shown with, and takes the new ones as shown.
func (v *view) refated(w where) []int64 {
	var out []int64
	for fork, was := range v.fates {
		if fork > v.newest || was == "" {
			continue
		}
		if now, _ := v.fate(fork, w); now != was {
			out = append(out, fork)
		}
	}
	return out
}

// showEnds puts into in how the blocks of the Fork nodes among its nodes
// stand, and takes that as shown.
func (v *view) showEnds(in *Inspection, w where) {
	for id, n := range in.Nodes {
		if n.Kind != tree.Fork {
			continue
		}
		fate, end := v.fate(id, w)
		v.fates[id] = fate
		switch fate {
		case fateAdopted, fateAbandoned:
			if in.Ends == nil {
				in.Ends = map[int64]tree.Node{}
			}
			in.Ends[id] = end
		case fateUndecided:
			if in.Undecided == nil {
				in.Undecided = map[int64]bool{}
			}
			in.Undecided[id] = true
		}
	}
}
