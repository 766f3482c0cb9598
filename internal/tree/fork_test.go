package tree

import (
	"slices"
	"testing"
)

// A turn's record on its branch holds, for each block it tried and went
// back from, the tried branch's nodes from the fork on (nested tries
// included); a kept block is on the branch already and adds nothing.
func TestTriedBranchesJoinATurnsRecord(t *testing.T) {
	back := func(id, parent, fork, tip int64) Node {
		return Node{ID: id, Parent: parent, Kind: ForkEnd, Ref: "c", Payload: MustEncode(ForkEndRecord{Fork: fork, Tip: tip})}
	}
	nodes := []Node{
		{ID: 1, Kind: UserMessage},
		{ID: 2, Parent: 1, Kind: Fork, Ref: "1-1"},
		{ID: 3, Parent: 2, Kind: ToolCall, Ref: "1-1.1"},
		{ID: 4, Parent: 3, Kind: Fork, Ref: "1-1.2"}, // tried within the tried block
		{ID: 5, Parent: 4, Kind: ToolCall, Ref: "1-1.2.1"},
		{ID: 6, Parent: 5, Kind: Stopped},
		back(7, 3, 4, 6),
		{ID: 8, Parent: 7, Kind: Stopped},
		back(9, 1, 2, 8),
		{ID: 10, Parent: 9, Kind: Fork, Ref: "1-3"},
		{ID: 11, Parent: 10, Kind: ForkEnd, Ref: "1-4", Payload: MustEncode(ForkEndRecord{Fork: 10, Forward: true})},
	}
	x := NewIndex(nodes)
	branch := x.PathTo(11)[1:]
	got := x.Tried(branch)
	var ids []int64
	for _, n := range got {
		ids = append(ids, n.ID)
	}
	if want := []int64{9, 10, 11, 2, 3, 7, 8, 4, 5, 6}; !slices.Equal(ids, want) {
		t.Errorf("the record is %v, want %v", ids, want)
	}
	if len(branch) != 3 || branch[0].ID != 9 {
		t.Errorf("the caller's branch was changed: %v", branch)
	}
}
