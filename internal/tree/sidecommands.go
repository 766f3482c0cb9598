package tree

import (
	"cmp"
	"slices"
)

// A side thread the user continued as the flow ("continue here") goes on
// through a Stopped node of the flow's agent hung from the end of the
// thread's last side question: it ends the turn whose question waited (so
// Path.OpenTurn sees no turn open), and what hangs under it is the flow's.
// The side questions above it stay side questions: from the flow that
// waited, the thread is a side thread still.

// Continues reports whether node id is where a side thread was continued as the
// flow: a Stopped node whose parent ended a side question's turn. A turn's
// own Stopped node hangs from what that turn recorded, never from the end
// of another turn.
func (x *Index) Continues(id int64) bool {
	n := x.nodes[id]
	if n.Kind != Stopped {
		return false
	}
	p, ok := x.nodes[n.Parent]
	if !ok {
		return false
	}
	switch p.Kind {
	case SideReply, Stopped, TurnError:
		_, side := x.SideRoot(p)
		return side
	}
	return false
}

// ThreadEnd returns the end of the last question of the side thread that
// side question q is in, from q on (follow-ups hang from the end of the
// question before), reporting false while that question's turn works.
func (x *Index) ThreadEnd(q int64) (Node, bool) {
	for {
		end, ok := x.SideEnd(q)
		if !ok {
			return Node{}, false
		}
		next := x.Sides(end.ID)
		if len(next) == 0 {
			return end, true
		}
		q = next[len(next)-1].ID
	}
}

// AsideFrom returns the node a side thread asked from node id of path
// hangs from: id, or, for the end of a side thread that path continued as
// the flow, the node that continued it. A side question hung from that
// end would be taken for a follow-up of the continued thread.
func (x *Index) AsideFrom(path Path, id int64) int64 {
	i, found := slices.BinarySearchFunc(path, id, func(n Node, id int64) int { return cmp.Compare(n.ID, id) })
	if found && i+1 < len(path) && x.Continues(path[i+1].ID) {
		return path[i+1].ID
	}
	return id
}

// FlowTip returns where the branch through id got to, what hangs aside
// left out: the newest node under id that is on no side branch hung from
// it, nor a decision of what a typed message was. It is where a reflog
// entry's state leads (NewestUnder would lead into a side thread answered
// last, a branch the flow never took).
func (x *Index) FlowTip(id int64) int64 {
	return x.newestUnder(id, flows)
}

// flows reports whether FlowTip walks into a node of kind k: not into a
// side question's thread, nor a decision, a queued message or feedback
// beside the flow.
func flows(k Kind) bool { return k != SideQuestion && k != Decision && k != Queued && k != Feedback }

// ToFlow returns where "back to the flow" goes from HEAD's branch path,
// given the reflog (newest first): the HEAD that the newest "continue" on
// path left, where the flow's question waited. It reports false when no
// side thread on path was continued.
func ToFlow(reflog []RefEntry, path Path) (int64, bool) {
	for _, e := range reflog {
		if e.Action == ActContinue && path.Contains(e.Head) {
			return e.Prev, true
		}
	}
	return 0, false
}

// AsFlow returns the kind a node of a side thread continued as the flow
// is shown as: a side question as a message of the user's, a side reply as
// the assistant's; any other kind as it is.
func AsFlow(k Kind) Kind {
	switch k {
	case SideQuestion:
		return UserMessage
	case SideReply:
		return AssistantMessage
	}
	return k
}

// State returns the node whose branch is reflog entry e's state, as far
// as it got (FlowTip): the HEAD it moved to, or, for the asking of a side
// question, whose move was a side branch's and not HEAD's, the HEAD the
// question was asked beside. (A side question's return already names the
// flow's HEAD.) So recovering it brings back the flow with the thread
// beside it; "continue here" is how a thread becomes the flow.
func (e RefEntry) State() int64 {
	if e.Action == ActFork {
		return e.Prev
	}
	return e.Head
}
