package tree

import (
	"slices"
	"testing"
)

// continued is a conversation whose side thread was continued as the flow,
// with a side question asked later from the continued flow, and the
// decision that took a typed message for a side question:
//
//	1 user
//	└ 2 elicit e1           the question that waited
//	  ├ 3 side              asked while it waited
//	  │ └ 4 side-reply
//	  │   └ 5 side          a follow-up
//	  │     └ 6 side-reply
//	  │       └ 7 stopped   continue here: e1 withdrawn
//	  │         └ 8 user
//	  │           └ 9 assistant
//	  │             └ 10 side   asked beside the reply
//	  │               └ 11 side-reply
//	  └ 12 decision         what a message typed while e1 waited was
func continued() *Index {
	return NewIndex([]Node{
		nd(1, 0, UserMessage, ""),
		nd(2, 1, ElicitRequest, "e1"),
		nd(3, 2, SideQuestion, ""),
		nd(4, 3, SideReply, ""),
		nd(5, 4, SideQuestion, ""),
		nd(6, 5, SideReply, ""),
		nd(7, 6, Stopped, ""),
		nd(8, 7, UserMessage, ""),
		nd(9, 8, AssistantMessage, ""),
		nd(10, 9, SideQuestion, ""),
		nd(11, 10, SideReply, ""),
		nd(12, 2, Decision, ""),
	})
}

// A continued thread ends at its continue node: its side questions keep
// their replies as their ends, the thread stays whole from the question
// that waited, and what hangs under the continue node is the flow's.
func TestAContinuedThreadEndsWhereTheFlowGoesOn(t *testing.T) {
	x := continued()
	for id, want := range map[int64]bool{7: true, 4: false, 6: false, 8: false, 1: false} {
		if got := x.Continues(id); got != want {
			t.Errorf("Continues(%d) = %v, want %v", id, got, want)
		}
	}
	if got := x.SideTip(5); got != 6 {
		t.Errorf("SideTip(5) = %d, want its reply 6, not the flow under the continue", got)
	}
	for _, q := range []int64{3, 5} {
		if end, ok := x.ThreadEnd(q); !ok || end.ID != 6 {
			t.Errorf("ThreadEnd(%d) = %d, %v; want 6", q, end.ID, ok)
		}
	}
	for _, id := range []int64{7, 8, 9} {
		if q, side := x.SideRoot(must(t, x, id)); side {
			t.Errorf("SideRoot(%d) = %d: a node of the continued flow is taken for a side one", id, q.ID)
		}
	}
	if q, side := x.SideRoot(must(t, x, 11)); !side || q.ID != 10 {
		t.Errorf("SideRoot(11) = %d, %v; want the later side question 10", q.ID, side)
	}
	if got := ids(x.PathTo(x.FlowTip(2))); !slices.Equal(got, []int64{1, 2}) {
		t.Errorf("the flow through 2 goes to %v, want to 2: its side threads and decisions are not the flow", got)
	}
	if got := x.AsideFrom(x.PathTo(9), 6); got != 7 {
		t.Errorf("AsideFrom the continued reply = %d, want the continue node 7 on the flow", got)
	}
	if got := x.AsideFrom(x.PathTo(9), 9); got != 9 {
		t.Errorf("AsideFrom a reply of the flow = %d, want 9 itself", got)
	}
	if got := x.FlowTip(7); got != 9 {
		t.Errorf("FlowTip(7) = %d, want 9", got)
	}
}

// Back to the flow goes to the HEAD the newest continue on the path left;
// a side question's asking is recovered to the HEAD it was asked beside.
func TestToFlowAndTheStateOfAnEntry(t *testing.T) {
	x := continued()
	reflog := []RefEntry{
		{ID: 4, Action: ActMessage, Head: 8, Prev: 7},
		{ID: 3, Action: ActContinue, Head: 7, Prev: 2},
		{ID: 2, Action: ActFork, Head: 3, Prev: 2},
		{ID: 1, Action: ActMessage, Head: 1},
	}
	if to, ok := ToFlow(reflog, x.PathTo(9)); !ok || to != 2 {
		t.Errorf("ToFlow from 9 = %d, %v; want 2", to, ok)
	}
	if _, ok := ToFlow(reflog, x.PathTo(2)); ok {
		t.Errorf("ToFlow from the question itself found somewhere to go back to")
	}
	if got := reflog[2].State(); got != 2 {
		t.Errorf("a fork entry's state = %d, want the HEAD it was asked beside", got)
	}
	if got := reflog[0].State(); got != 8 {
		t.Errorf("a message entry's state = %d, want its head", got)
	}
}
