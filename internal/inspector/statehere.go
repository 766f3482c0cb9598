package inspector

import (
	"cmp"
	"slices"
	"strconv"
	"strings"

	"github.com/sweatpants-go/sweatpants/internal/apperr"
	"github.com/sweatpants-go/sweatpants/internal/state"
	"github.com/sweatpants-go/sweatpants/internal/tree"
)

// The agents' state an inspector shows: at the end of the marked path, or
// at a node the developer picked on any branch, each value with the change
// that set it and the call that made that change.

// noNode is the answer for a node the conversation does not hold.
func noNode(id int64) error {
	return apperr.Errorf(apperr.NotFound, "There is no node %d in this conversation.", id)
}

// showState puts into in the agents' state the view shows — at the node
// picked, or else at the end of tipPath — and takes it as shown; onTip
// tells the nodes on the marked path. It reports whether what it shows
// differs from what was shown: a change on the path, the call that made a
// change recorded since, or the picked node joining or leaving the marked
// path.
func (v *view) showState(x *tree.Index, in *Inspection, tipPath tree.Path, onTip func(int64) bool) bool {
	path, onPath := tipPath, false
	if v.node != 0 {
		sel, ok := x.Node(v.node)
		if !ok {
			return false // collected: the next changes start over, and say so
		}
		path, onPath = x.PathTo(sel.ID), onTip(sel.ID)
		in.Selected, in.SelectedOnPath = sel, onPath
	}
	now := agentStates(x, path)
	changed := !slices.EqualFunc(now, v.state, sameState) || onPath != v.selOnPath
	in.State, v.state, v.selOnPath = now, now, onPath
	return changed
}

// sameState reports whether a and b are drawn alike.
func sameState(a, b AgentState) bool {
	return a.Node == b.Node && a.Call.ID == b.Call.ID && a.Turn.ID == b.Turn.ID
}

// agentStates is the agents' state at the end of path, by agent and name,
// each with what made its last change.
func agentStates(x *tree.Index, path tree.Path) []AgentState {
	var out []AgentState
	for k, val := range state.Of(path).All() {
		s := AgentState{Agent: k.Agent, Name: k.Name, Value: val.JSON, Node: val.Node}
		if n, ok := x.Node(val.Node); ok {
			s.Call, s.Turn = madeBy(x, path, n)
		}
		out = append(out, s)
	}
	slices.SortFunc(out, func(a, b AgentState) int { return cmp.Or(cmp.Compare(a.Agent, b.Agent), cmp.Compare(a.Name, b.Name)) })
	return out
}

// madeBy finds what made change: the innermost tool call whose call id
// its own call id lies within ("12-3" for "12-3.1"), and the message whose
// turn it was ("12"). A tool call is recorded when it ends, below the
// changes it made; where a later edit of an answer replayed it on two
// branches, the one on path is taken, or else the oldest.
func madeBy(x *tree.Index, path tree.Path, change tree.Node) (call, turn tree.Node) {
	ref := change.Ref
	for i := strings.LastIndexByte(ref, '.'); i >= 0 && call.ID == 0; i = strings.LastIndexByte(ref, '.') {
		ref = ref[:i]
		for _, id := range x.WithRef(ref) {
			n, _ := x.Node(id)
			if n.Kind != tree.ToolCall || !x.Under(id, change.ID) {
				continue
			}
			if call.ID == 0 || path.Contains(id) {
				call = n
			}
		}
	}
	start, _, ok := strings.Cut(change.Ref, "-")
	if !ok {
		return call, turn
	}
	if id, err := strconv.ParseInt(start, 10, 64); err == nil {
		if n, ok := x.Node(id); ok && (n.Kind == tree.UserMessage || n.Kind == tree.SideQuestion) {
			turn = n
		}
	}
	return call, turn
}
