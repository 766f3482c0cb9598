package tree

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// nd makes a node for a hand-built tree.
func nd(id, parent int64, kind Kind, ref string) Node {
	return Node{ID: id, Parent: parent, Kind: kind, Ref: ref}
}

// branches is a conversation whose second user message was edited twice
// and whose question was answered twice:
//
//	1 user
//	└ 2 assistant
//	  ├ 3 user            first version
//	  │ └ 4 assistant
//	  ├ 5 user            second version
//	  │ └ 6 assistant
//	  └ 7 user            third version
//	    └ 8 elicit e1
//	      ├ 9 response e1     first answer
//	      ├ 10 response e1    changed answer
//	      │ └ 11 assistant
//	      └ 12 notify e1
//	13 user               a second root
func branches() *Index {
	return NewIndex([]Node{
		nd(1, 0, UserMessage, ""),
		nd(2, 1, AssistantMessage, ""),
		nd(3, 2, UserMessage, ""),
		nd(4, 3, AssistantMessage, ""),
		nd(5, 2, UserMessage, ""),
		nd(6, 5, AssistantMessage, ""),
		nd(7, 2, UserMessage, ""),
		nd(8, 7, ElicitRequest, "e1"),
		nd(9, 8, ElicitResponse, "e1"),
		nd(10, 8, ElicitResponse, "e1"),
		nd(11, 10, AssistantMessage, ""),
		nd(12, 8, Notify, "e1"),
		nd(13, 0, UserMessage, ""),
	})
}

// sides is a conversation with side questions asked while a question
// waited:
//
//	1 user
//	└ 2 elicit e1
//	  ├ 3 side
//	  │ └ 4 sample c2
//	  │   └ 5 side-reply
//	  │     └ 9 side          asked from the side branch
//	  ├ 6 side                not answered
//	  └ 7 response e1
//	    └ 8 assistant
//	      ├ 10 side
//	      │ ├ 11 sample c3
//	      │ │ └ 12 side-reply  deeper, so found after 13
//	      │ └ 13 side-reply
//	      └ 14 user
func sides() *Index {
	return NewIndex([]Node{
		nd(1, 0, UserMessage, ""),
		nd(2, 1, ElicitRequest, "e1"),
		nd(3, 2, SideQuestion, ""),
		nd(4, 3, Sample, "c2"),
		nd(5, 4, SideReply, ""),
		nd(6, 2, SideQuestion, ""),
		nd(7, 2, ElicitResponse, "e1"),
		nd(8, 7, AssistantMessage, ""),
		nd(9, 5, SideQuestion, ""),
		nd(10, 8, SideQuestion, ""),
		nd(11, 10, Sample, "c3"),
		nd(12, 11, SideReply, ""),
		nd(13, 10, SideReply, ""),
		nd(14, 8, UserMessage, ""),
	})
}

// collectable is a conversation with old branches for garbage collection:
//
//	1 user
//	└ 2 assistant
//	  ├ 3 user           an old version
//	  │ └ 4 assistant
//	  │   └ 5 side
//	  │     └ 6 side-reply
//	  ├ 7 user           HEAD's branch
//	  │ └ 8 elicit e1
//	  │   ├ 9 side
//	  │   │ └ 10 sample
//	  │   │   └ 11 side-reply
//	  │   └ 12 response e1
//	  │     └ 13 assistant   HEAD
//	  └ 14 user          another version
//	    └ 15 assistant
//	16 user
func collectable() *Index {
	return NewIndex([]Node{
		nd(1, 0, UserMessage, ""),
		nd(2, 1, AssistantMessage, ""),
		nd(3, 2, UserMessage, ""),
		nd(4, 3, AssistantMessage, ""),
		nd(5, 4, SideQuestion, ""),
		nd(6, 5, SideReply, ""),
		nd(7, 2, UserMessage, ""),
		nd(8, 7, ElicitRequest, "e1"),
		nd(9, 8, SideQuestion, ""),
		nd(10, 9, Sample, "c9"),
		nd(11, 10, SideReply, ""),
		nd(12, 8, ElicitResponse, "e1"),
		nd(13, 12, AssistantMessage, ""),
		nd(14, 2, UserMessage, ""),
		nd(15, 14, AssistantMessage, ""),
		nd(16, 0, UserMessage, ""),
	})
}

// ids returns the ids of p, in order.
func ids(p Path) []int64 {
	var out []int64
	for _, n := range p {
		out = append(out, n.ID)
	}
	return out
}

// must returns node id of x, failing the test if x does not hold it.
func must(t *testing.T, x *Index, id int64) Node {
	t.Helper()
	n, ok := x.Node(id)
	if !ok {
		t.Fatalf("node %d is not in the index", id)
	}
	return n
}

func TestChildren(t *testing.T) {
	x := branches()
	tests := []struct {
		id   int64
		want []int64
	}{
		{0, []int64{1, 13}},
		{2, []int64{3, 5, 7}},
		{8, []int64{9, 10, 12}},
		{11, nil},
		{99, nil},
	}
	for _, tt := range tests {
		if got := x.Children(tt.id); !slices.Equal(got, tt.want) {
			t.Errorf("Children(%d) = %v, want %v", tt.id, got, tt.want)
		}
	}
	if got, want := x.WithRef("e1"), []int64{8, 9, 10, 12}; !slices.Equal(got, want) {
		t.Errorf("WithRef(e1) = %v, want %v", got, want)
	}
	if got := x.WithRef(""); got != nil {
		t.Errorf("WithRef(\"\") = %v, want none: nodes without a ref are not indexed by it", got)
	}
	if got, want := x.Len(), 13; got != want {
		t.Errorf("Len() = %d, want %d", got, want)
	}
	if got, want := len(x.Nodes()), 13; got != want {
		t.Errorf("len(Nodes()) = %d, want %d", got, want)
	}
	if got, want := x.Newest(), int64(13); got != want {
		t.Errorf("Newest() = %d, want %d", got, want)
	}
}

func TestAddMatchesNewIndex(t *testing.T) {
	all := slices.Collect(maps.Values(branches().Nodes()))
	slices.SortFunc(all, func(a, b Node) int { return int(a.ID - b.ID) })
	for k := range all {
		x := NewIndex(all[:k])
		for _, n := range all[k:] {
			x.Add(n)
		}
		if want := NewIndex(all); !reflect.DeepEqual(x, want) {
			t.Errorf("NewIndex of %d nodes and Add of the rest = %+v, want %+v", k, x, want)
		}
	}

	var zero Index
	zero.Add(nd(1, 0, UserMessage, "r"))
	if n, ok := zero.Node(1); !ok || n.ID != 1 || !slices.Equal(zero.WithRef("r"), []int64{1}) {
		t.Errorf("a zero Index did not take a node: %+v", zero)
	}
}

func TestEmptyIndex(t *testing.T) {
	x := NewIndex(nil)
	if x.Len() != 0 || x.Newest() != 0 || x.Children(0) != nil || len(x.PathTo(1)) != 0 {
		t.Errorf("empty index: Len %d, Newest %d, Children(0) %v, PathTo(1) %v", x.Len(), x.Newest(), x.Children(0), x.PathTo(1))
	}
	if got := x.NewestUnder(5); got != 5 {
		t.Errorf("NewestUnder(5) = %d, want 5", got)
	}
	if got := x.Reachable(nil, nil, func(Node) bool { return true }); len(got) != 0 {
		t.Errorf("Reachable = %v, want none", got)
	}
	if got := x.CurrentEntries(nil, []int64{1, 0}); !slices.Equal(got, []bool{false, false}) {
		t.Errorf("CurrentEntries = %v, want [false false]", got)
	}
	if _, ok := x.SideEnd(1); ok {
		t.Error("SideEnd(1) found an end")
	}
	if got := x.Sides(0); got != nil {
		t.Errorf("Sides(0) = %v, want none", got)
	}
	x.Drop([]int64{1})
	if x.Len() != 0 {
		t.Errorf("Len() after Drop = %d", x.Len())
	}
}

func TestPathTo(t *testing.T) {
	x := branches()
	tests := []struct {
		id   int64
		want []int64
	}{
		{11, []int64{1, 2, 7, 8, 10, 11}},
		{4, []int64{1, 2, 3, 4}},
		{1, []int64{1}},
		{13, []int64{13}},
		{0, nil},
		{99, nil},
	}
	for _, tt := range tests {
		if got := ids(x.PathTo(tt.id)); !slices.Equal(got, tt.want) {
			t.Errorf("PathTo(%d) = %v, want %v", tt.id, got, tt.want)
		}
	}
}

func TestAlternatives(t *testing.T) {
	x := branches()
	tests := []struct {
		name string
		node Node
		want []int64
	}{
		{"a user message edited twice", must(t, x, 5), []int64{3, 5, 7}},
		{"the first version too", must(t, x, 3), []int64{3, 5, 7}},
		{"answers to the same request, not its progress report", must(t, x, 10), []int64{9, 10}},
		{"a progress report with the answers' ref", must(t, x, 12), []int64{12}},
		{"the roots", must(t, x, 1), []int64{1, 13}},
		{"an only child", must(t, x, 11), []int64{11}},
		{"an unknown node among known siblings", nd(99, 2, AssistantMessage, ""), nil},
		{"an unknown parent", nd(99, 98, UserMessage, ""), nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := x.Alternatives(tt.node); !slices.Equal(got, tt.want) {
				t.Errorf("Alternatives(%d) = %v, want %v", tt.node.ID, got, tt.want)
			}
		})
	}
}

func TestNewestUnder(t *testing.T) {
	x := branches()
	tests := []struct {
		id, want int64
	}{
		{2, 12},
		{3, 4},
		{5, 6},
		{8, 12},
		{10, 11},
		{11, 11},
		{13, 13},
		{0, 13},
		{99, 99},
	}
	for _, tt := range tests {
		if got := x.NewestUnder(tt.id); got != tt.want {
			t.Errorf("NewestUnder(%d) = %d, want %d", tt.id, got, tt.want)
		}
	}
}

func TestUnder(t *testing.T) {
	x := branches()
	tests := []struct {
		id, top int64
		want    bool
	}{
		{11, 7, true},
		{11, 10, true},
		{11, 1, true},
		{4, 4, true},
		{11, 5, false},
		{11, 9, false},
		{5, 3, false},
		{3, 5, false},
		{13, 1, false},
		{11, 0, true},
		{0, 0, true},
		{0, 3, false},
		{99, 1, false},
	}
	for _, tt := range tests {
		if got := x.Under(tt.id, tt.top); got != tt.want {
			t.Errorf("Under(%d, %d) = %v, want %v", tt.id, tt.top, got, tt.want)
		}
	}
}

func TestPathDiff(t *testing.T) {
	x := branches()
	tests := []struct {
		a, b        int64
		leave, join []int64
	}{
		{4, 11, []int64{4, 3}, []int64{11, 10, 8, 7}},
		{11, 4, []int64{11, 10, 8, 7}, []int64{4, 3}},
		{9, 11, []int64{9}, []int64{11, 10}},
		{8, 11, nil, []int64{11, 10}},
		{11, 8, []int64{11, 10}, nil},
		{6, 6, nil, nil},
		{0, 4, nil, []int64{4, 3, 2, 1}},
		{13, 4, []int64{13}, []int64{4, 3, 2, 1}},
	}
	for _, tt := range tests {
		leave, join := x.PathDiff(tt.a, tt.b)
		if !slices.Equal(leave, tt.leave) || !slices.Equal(join, tt.join) {
			t.Errorf("PathDiff(%d, %d) = %v, %v, want %v, %v", tt.a, tt.b, leave, join, tt.leave, tt.join)
		}
	}
}

func TestSideRoot(t *testing.T) {
	x := sides()
	tests := []struct {
		name string
		node Node
		want int64 // 0: none
	}{
		{"the question itself", must(t, x, 3), 3},
		{"its model call", must(t, x, 4), 3},
		{"its reply", must(t, x, 5), 3},
		{"a side question asked from a side branch is its own", must(t, x, 9), 9},
		{"a reply two levels down", must(t, x, 12), 10},
		{"a node of the flow", must(t, x, 7), 0},
		{"a root", must(t, x, 1), 0},
		{"a node not yet indexed, under a side question", nd(50, 4, Sample, ""), 3},
		{"an unknown parent", nd(50, 99, Sample, ""), 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n, ok := x.SideRoot(tt.node)
			if got := found(n, ok); got != tt.want {
				t.Errorf("SideRoot(%d) = %d, want %d", tt.node.ID, got, tt.want)
			}
		})
	}
}

func TestSideEnd(t *testing.T) {
	tests := []struct {
		name   string
		q      int64
		want   int64 // 0: none
		before func(*Index)
	}{
		{name: "under the model call", q: 3, want: 5},
		{name: "not answered", q: 6, want: 0},
		{name: "a nested side question, not answered", q: 9, want: 0},
		{name: "the newest end of its own turn", q: 10, want: 13},
		{name: "unknown", q: 99, want: 0},
		{name: "after its reply was dropped", q: 10, want: 12, before: func(x *Index) { x.Drop([]int64{13}) }},
		{name: "answered after being asked", q: 6, want: 16, before: func(x *Index) {
			x.Add(nd(15, 6, Sample, "c4"))
			x.Add(nd(16, 15, SideReply, ""))
		}},
		{name: "stopped: the stop ends it, not a deeper reply", q: 6, want: 16, before: func(x *Index) {
			x.Add(nd(16, 6, Stopped, ""))
			x.Add(nd(17, 16, SideQuestion, ""))
			x.Add(nd(18, 17, SideReply, ""))
		}},
		{name: "failed", q: 6, want: 16, before: func(x *Index) { x.Add(nd(16, 6, TurnError, "")) }},
		{name: "an answer changed: the new version, still running", q: 6, want: 0, before: changedSide(false)},
		{name: "an answer changed: the new version's end, not the old one's or a follow-up's", q: 6, want: 22, before: changedSide(true)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			x := sides()
			if tt.before != nil {
				tt.before(x)
			}
			n, ok := x.SideEnd(tt.q)
			if got := found(n, ok); got != tt.want {
				t.Errorf("SideEnd(%d) = %d, want %d", tt.q, got, tt.want)
			}
		})
	}
}

// changedSide gives side question 6 a question, answered (15, 16), a
// reply (17) with a follow-up (18, 19), then the answer changed (20): a
// second version of 6's turn, which has ended when ended is set.
func changedSide(ended bool) func(*Index) {
	return func(x *Index) {
		x.Add(nd(15, 6, ElicitRequest, "6-1"))
		x.Add(nd(16, 15, ElicitResponse, "6-1"))
		x.Add(nd(17, 16, SideReply, ""))
		x.Add(nd(18, 17, SideQuestion, ""))
		x.Add(nd(19, 18, SideReply, ""))
		x.Add(nd(20, 15, ElicitResponse, "6-1"))
		if ended {
			x.Add(nd(21, 20, Sample, "6-2"))
			x.Add(nd(22, 21, SideReply, ""))
		}
	}
}

func TestSides(t *testing.T) {
	x := sides()
	tests := []struct {
		id   int64
		want []int64
	}{
		{2, []int64{3, 6}},
		{5, []int64{9}},
		{8, []int64{10}},
		{10, nil},
		{1, nil},
		{0, nil},
		{99, nil},
	}
	for _, tt := range tests {
		if got := ids(x.Sides(tt.id)); !slices.Equal(got, tt.want) {
			t.Errorf("Sides(%d) = %v, want %v", tt.id, got, tt.want)
		}
	}
}

func TestSideThread(t *testing.T) {
	x := sides()
	tests := []struct {
		id   int64
		want []int64
	}{
		{2, []int64{3, 9, 6}}, // 9 follows up 3, hanging from 3's reply
		{8, []int64{10}},
		{5, []int64{9}},
		{1, nil},
		{99, nil},
	}
	for _, tt := range tests {
		if got := ids(x.SideThread(tt.id)); !slices.Equal(got, tt.want) {
			t.Errorf("SideThread(%d) = %v, want %v", tt.id, got, tt.want)
		}
	}
}

func TestReachable(t *testing.T) {
	youngIDs := func(ids ...int64) func(Node) bool {
		return func(n Node) bool { return slices.Contains(ids, n.ID) }
	}
	base := []int64{1, 2, 7, 8, 9, 10, 11, 12, 13} // HEAD's branch and its side question
	tests := []struct {
		name  string
		head  int64
		heads []int64
		young func(Node) bool
		want  []int64
	}{
		{name: "HEAD's branch with its side questions", head: 13, want: base},
		{name: "a reflog head keeps its subtree and its side questions", head: 13, heads: []int64{4}, want: append([]int64{3, 4, 5, 6}, base...)},
		{name: "a reflog head at a branch point", head: 13, heads: []int64{3}, want: append([]int64{3, 4, 5, 6}, base...)},
		{name: "a reflog head on HEAD's branch", head: 13, heads: []int64{13, 7}, want: base},
		{name: "a young node keeps its ancestors", head: 13, young: youngIDs(15), want: append([]int64{14, 15}, base...)},
		{name: "a young node keeps no descendants", head: 13, young: youngIDs(3), want: append([]int64{3}, base...)},
		{name: "a young root", head: 13, young: youngIDs(16), want: append([]int64{16}, base...)},
		{name: "every node young", head: 13, young: func(Node) bool { return true }, want: []int64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}},
		{name: "an unknown reflog head is kept alone", head: 13, heads: []int64{99}, want: append([]int64{99}, base...)},
		{name: "no HEAD: only the reflog", heads: []int64{8}, want: base},
		{name: "no HEAD and nothing young", want: nil},
		{name: "HEAD inside a side branch", head: 6, want: []int64{1, 2, 3, 4, 5, 6}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			x := collectable()
			got := slices.Sorted(maps.Keys(x.Reachable(x.PathTo(tt.head), tt.heads, tt.young)))
			if want := slices.Sorted(slices.Values(tt.want)); !slices.Equal(got, want) {
				t.Errorf("Reachable = %v, want %v", got, want)
			}
		})
	}
}

func TestCurrentEntries(t *testing.T) {
	heads := []int64{11, 10, 8, 7, 4, 1, 12, 13, 0, 99}
	tests := []struct {
		name   string
		head   int64
		before func(*Index)
		want   []bool
	}{
		{"a newer node hangs from the path at 8", 11, nil,
			[]bool{true, true, false, false, false, false, false, false, false, false}},
		{"the newest node is HEAD", 13, nil,
			[]bool{false, false, false, false, false, false, false, true, false, false}},
		{"a newer node in another root's tree", 12, nil,
			[]bool{false, false, true, true, false, true, true, false, false, false}},
		{"a newer node under HEAD itself", 12, func(x *Index) { x.Add(nd(14, 12, Notify, "")) },
			[]bool{false, false, false, false, false, false, false, false, false, false}},
		{"the newer nodes dropped", 11, func(x *Index) { x.Drop([]int64{12, 13}) },
			[]bool{true, true, true, true, false, true, false, false, false, false}},
		{"no HEAD", 0, nil,
			[]bool{false, false, false, false, false, false, false, false, false, false}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			x := branches()
			if tt.before != nil {
				tt.before(x)
			}
			got := x.CurrentEntries(x.PathTo(tt.head), heads)
			if !slices.Equal(got, tt.want) {
				t.Errorf("CurrentEntries(path to %d, %v) = %v, want %v", tt.head, heads, got, tt.want)
			}
			// What it stands for: recovering the entry leaves HEAD where it is.
			for i, h := range heads {
				if _, known := x.Node(h); known && got[i] != (x.FlowTip(h) == tt.head) {
					t.Errorf("head %d: current %v, but FlowTip(%d) = %d and HEAD is %d", h, got[i], h, x.FlowTip(h), tt.head)
				}
			}
		})
	}
}

func TestDrop(t *testing.T) {
	x := branches()
	held := x.Children(2) // a caller's copy must not change under it
	x.Drop([]int64{3, 4, 9, 99})

	if got, want := held, []int64{3, 5, 7}; !slices.Equal(got, want) {
		t.Errorf("a slice Children returned before Drop = %v, want %v", got, want)
	}
	if got, want := x.Len(), 10; got != want {
		t.Errorf("Len() = %d, want %d", got, want)
	}
	for _, id := range []int64{3, 4, 9} {
		if _, ok := x.Node(id); ok {
			t.Errorf("node %d is still in the index", id)
		}
		if _, ok := x.Nodes()[id]; ok {
			t.Errorf("node %d is still in Nodes()", id)
		}
	}
	if got, want := x.Children(2), []int64{5, 7}; !slices.Equal(got, want) {
		t.Errorf("Children(2) = %v, want %v", got, want)
	}
	if got := x.Children(3); got != nil {
		t.Errorf("Children(3) = %v, want none", got)
	}
	if got, want := x.Children(8), []int64{10, 12}; !slices.Equal(got, want) {
		t.Errorf("Children(8) = %v, want %v", got, want)
	}
	if got, want := x.WithRef("e1"), []int64{8, 10, 12}; !slices.Equal(got, want) {
		t.Errorf("WithRef(e1) = %v, want %v", got, want)
	}
	if got, want := x.Alternatives(must(t, x, 10)), []int64{10}; !slices.Equal(got, want) {
		t.Errorf("Alternatives(10) = %v, want %v", got, want)
	}
	if got, want := x.Alternatives(must(t, x, 5)), []int64{5, 7}; !slices.Equal(got, want) {
		t.Errorf("Alternatives(5) = %v, want %v", got, want)
	}
	if got := x.PathTo(4); len(got) != 0 {
		t.Errorf("PathTo(4) = %v, want empty", ids(got))
	}
	if got, want := x.Newest(), int64(13); got != want {
		t.Errorf("Newest() = %d, want %d", got, want)
	}

	x.Drop([]int64{13, 12})
	if got, want := x.Newest(), int64(11); got != want {
		t.Errorf("Newest() after dropping the newest = %d, want %d", got, want)
	}
	if got, want := x.Children(0), []int64{1}; !slices.Equal(got, want) {
		t.Errorf("Children(0) = %v, want %v", got, want)
	}
	x.Drop([]int64{8, 10, 11})
	if got := x.WithRef("e1"); got != nil {
		t.Errorf("WithRef(e1) after dropping every carrier = %v, want none", got)
	}
	if _, ok := x.byRef["e1"]; ok {
		t.Error("byRef keeps an empty entry for e1")
	}
	if got, want := x.Children(2), []int64{5, 7}; !slices.Equal(got, want) {
		t.Errorf("Children(2) = %v, want %v", got, want)
	}
	if _, ok := x.children[7]; ok {
		t.Error("children keeps an empty entry for 7")
	}
	x.Drop([]int64{5}) // not its child 6: garbage collection never does so, but the entry goes
	if got := x.Children(5); got != nil {
		t.Errorf("Children(5) of a dropped node = %v, want none", got)
	}
	if got, want := x.Children(2), []int64{7}; !slices.Equal(got, want) {
		t.Errorf("Children(2) = %v, want %v", got, want)
	}
}

// TestWalksAgree checks the walks against each other, and against plain
// definitions, on random trees.
func TestWalksAgree(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	kinds := []Kind{UserMessage, AssistantMessage, ElicitRequest, ElicitResponse, SideQuestion, SideReply, Sample, Decision, Queued}
	for round := range 50 {
		var nodes []Node
		for id := int64(1); id <= int64(5+r.IntN(40)); id++ {
			var parent int64
			if r.IntN(8) > 0 {
				parent = r.Int64N(id) // 0 .. id-1
			}
			var ref string
			if r.IntN(2) == 0 {
				ref = string(rune('a' + r.IntN(3)))
			}
			nodes = append(nodes, nd(id, parent, kinds[r.IntN(len(kinds))], ref))
		}
		x := NewIndex(nodes)
		if round%3 == 0 { // drop a subtree, as garbage collection would
			top := nodes[r.IntN(len(nodes))].ID
			var doomed []int64
			for _, n := range nodes {
				if x.Under(n.ID, top) {
					doomed = append(doomed, n.ID)
				}
			}
			x.Drop(doomed)
		}
		all := slices.Sorted(maps.Keys(x.Nodes()))
		for _, head := range all {
			path := x.PathTo(head)
			if path.Head() != head || path[0].Parent != 0 {
				t.Fatalf("round %d: PathTo(%d) = %v", round, head, ids(path))
			}
			for i := 1; i < len(path); i++ {
				if path[i].Parent != path[i-1].ID {
					t.Fatalf("round %d: PathTo(%d) = %v is not a chain", round, head, ids(path))
				}
			}
			var current []bool
			for _, id := range all {
				if got, want := x.Under(head, id), path.Contains(id); got != want {
					t.Errorf("round %d: Under(%d, %d) = %v, but PathTo(%d) = %v", round, head, id, got, head, ids(path))
				}
				current = append(current, x.FlowTip(id) == head)
				leave, join := x.PathDiff(id, head)
				wantLeave := notOn(x.PathTo(id), path)
				wantJoin := notOn(path, x.PathTo(id))
				if !slices.Equal(leave, wantLeave) || !slices.Equal(join, wantJoin) {
					t.Errorf("round %d: PathDiff(%d, %d) = %v, %v, want %v, %v", round, id, head, leave, join, wantLeave, wantJoin)
				}
			}
			if got := x.CurrentEntries(path, all); !slices.Equal(got, current) {
				t.Errorf("round %d: CurrentEntries(path to %d) = %v, want %v", round, head, got, current)
			}
			for _, ref := range []string{"a", "b", "c"} {
				for _, kind := range kinds {
					var want int64
					for _, n := range path {
						if n.Ref == ref && n.Kind == kind {
							want = n.ID
						}
					}
					if got := found(x.NewestOnPath(path, ref, kind)); got != want {
						t.Errorf("round %d: NewestOnPath(path to %d, %s, %s) = %d, want %d", round, head, ref, kind, got, want)
					}
				}
			}
		}
		for _, id := range all {
			newest := id
			for _, other := range all {
				if x.Under(other, id) {
					newest = max(newest, other)
				}
			}
			if got := x.NewestUnder(id); got != newest {
				t.Errorf("round %d: NewestUnder(%d) = %d, want %d", round, id, got, newest)
			}
			n := must(t, x, id)
			var alts []int64
			for _, other := range all {
				if o := x.Nodes()[other]; o.Parent == n.Parent && o.Kind == n.Kind && o.Ref == n.Ref {
					alts = append(alts, other)
				}
			}
			if got := x.Alternatives(n); !slices.Equal(got, alts) {
				t.Errorf("round %d: Alternatives(%d) = %v, want %v", round, id, got, alts)
			}
		}
	}
}

// notOn returns the ids of p that are not on q, from the end up.
func notOn(p, q Path) []int64 {
	var out []int64
	for _, n := range slices.Backward(p) {
		if !q.Contains(n.ID) {
			out = append(out, n.ID)
		}
	}
	return out
}

var update = flag.Bool("update", false, "rewrite the want part of the golden files in testdata")

// goldenCase is one file of testdata: a small tree written by hand, the
// state garbage collection and the reflog see, and what the walks answer
// for it, which -update writes.
type goldenCase struct {
	Description string       `json:"description"`
	Head        int64        `json:"head"`         // HEAD: the path is the one to it
	ReflogHeads []int64      `json:"reflog_heads"` // the heads of the reflog entries kept
	Young       []int64      `json:"young"`        // nodes too young to collect
	Nodes       []goldenNode `json:"nodes"`        // in id order
	Want        goldenWant   `json:"want"`
}

type goldenNode struct {
	ID     int64  `json:"id"`
	Parent int64  `json:"parent,omitempty"`
	Kind   Kind   `json:"kind"`
	Ref    string `json:"ref,omitempty"`
}

type goldenWant struct {
	Path         []int64      `json:"path"`           // PathTo(head)
	Roots        []int64      `json:"roots"`          // Children(0)
	Reachable    []int64      `json:"reachable"`      // Reachable(path, reflog_heads, young), sorted
	Collected    []int64      `json:"collected"`      // the nodes not reachable
	Current      []bool       `json:"current"`        // CurrentEntries(path, reflog_heads)
	NewestOnPath []goldenFind `json:"newest_on_path"` // for each ref and kind of the nodes
	Walks        []goldenWalk `json:"walks"`          // one per node
}

// goldenFind is what NewestOnPath(path, Ref, Kind) found; ID 0 if nothing.
type goldenFind struct {
	Ref  string `json:"ref"`
	Kind Kind   `json:"kind"`
	ID   int64  `json:"id"`
}

// goldenWalk is what the walks from one node answer.
type goldenWalk struct {
	ID           int64   `json:"id"`
	Path         []int64 `json:"path"`
	Children     []int64 `json:"children,omitempty"`
	Alternatives []int64 `json:"alternatives"`
	NewestUnder  int64   `json:"newest_under"`
	Sides        []int64 `json:"sides,omitempty"`
	SideRoot     int64   `json:"side_root,omitempty"`  // 0: on no side branch
	SideReply    int64   `json:"side_reply,omitempty"` // for a side question: its reply
}

// answer runs the walks over c's tree.
func (c goldenCase) answer(t *testing.T) goldenWant {
	var nodes []Node
	for i, g := range c.Nodes {
		if i > 0 && g.ID <= c.Nodes[i-1].ID || g.Parent >= g.ID {
			t.Fatalf("node %d: ids must increase and a parent be older than its children", g.ID)
		}
		nodes = append(nodes, Node{ID: g.ID, Parent: g.Parent, Kind: g.Kind, Ref: g.Ref})
	}
	x := NewIndex(nodes)
	path := x.PathTo(c.Head)
	young := func(n Node) bool { return slices.Contains(c.Young, n.ID) }
	keep := x.Reachable(path, c.ReflogHeads, young)
	w := goldenWant{
		Path:      orEmpty(ids(path)),
		Roots:     orEmpty(x.Children(0)),
		Reachable: orEmpty(slices.Sorted(maps.Keys(keep))),
		Collected: []int64{},
		Current:   x.CurrentEntries(path, c.ReflogHeads),
		Walks:     []goldenWalk{},
	}
	type refKind struct {
		ref  string
		kind Kind
	}
	asked := map[refKind]bool{}
	for _, n := range nodes {
		if !keep[n.ID] {
			w.Collected = append(w.Collected, n.ID)
		}
		if rk := (refKind{n.Ref, n.Kind}); n.Ref != "" && !asked[rk] {
			asked[rk] = true
			w.NewestOnPath = append(w.NewestOnPath, goldenFind{n.Ref, n.Kind, found(x.NewestOnPath(path, n.Ref, n.Kind))})
		}
		g := goldenWalk{
			ID:           n.ID,
			Path:         ids(x.PathTo(n.ID)),
			Children:     x.Children(n.ID),
			Alternatives: x.Alternatives(n),
			NewestUnder:  x.NewestUnder(n.ID),
			Sides:        ids(x.Sides(n.ID)),
			SideRoot:     found(x.SideRoot(n)),
		}
		if n.Kind == SideQuestion {
			g.SideReply = found(x.SideEnd(n.ID))
		}
		w.Walks = append(w.Walks, g)
	}
	if w.Current == nil {
		w.Current = []bool{}
	}
	if w.NewestOnPath == nil {
		w.NewestOnPath = []goldenFind{}
	}
	return w
}

func orEmpty(s []int64) []int64 {
	if s == nil {
		return []int64{}
	}
	return s
}

// encode writes c for a person to read: one line per node and per walk.
func (c goldenCase) encode() []byte {
	var b bytes.Buffer
	j := func(v any) string {
		out, err := json.Marshal(v)
		if err != nil {
			panic(err)
		}
		return string(out)
	}
	rows := func(indent string, items []string) string {
		if len(items) == 0 {
			return "[]"
		}
		return "[\n" + indent + "  " + strings.Join(items, ",\n"+indent+"  ") + "\n" + indent + "]"
	}
	var nodes, finds, walks []string
	for _, n := range c.Nodes {
		nodes = append(nodes, j(n))
	}
	for _, f := range c.Want.NewestOnPath {
		finds = append(finds, j(f))
	}
	for _, w := range c.Want.Walks {
		walks = append(walks, j(w))
	}
	fmt.Fprintf(&b, "{\n  \"description\": %s,\n", j(c.Description))
	fmt.Fprintf(&b, "  \"head\": %d,\n  \"reflog_heads\": %s,\n  \"young\": %s,\n", c.Head, j(orEmpty(c.ReflogHeads)), j(orEmpty(c.Young)))
	fmt.Fprintf(&b, "  \"nodes\": %s,\n", rows("  ", nodes))
	fmt.Fprintf(&b, "  \"want\": {\n")
	fmt.Fprintf(&b, "    \"path\": %s,\n    \"roots\": %s,\n", j(c.Want.Path), j(c.Want.Roots))
	fmt.Fprintf(&b, "    \"reachable\": %s,\n    \"collected\": %s,\n", j(c.Want.Reachable), j(c.Want.Collected))
	fmt.Fprintf(&b, "    \"current\": %s,\n", j(c.Want.Current))
	fmt.Fprintf(&b, "    \"newest_on_path\": %s,\n", rows("    ", finds))
	fmt.Fprintf(&b, "    \"walks\": %s\n  }\n}\n", rows("    ", walks))
	return b.Bytes()
}

// TestGolden runs the walks over the trees of testdata/*.json and compares
// their answers with the files' want; -update rewrites want.
func TestGolden(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no golden files in testdata")
	}
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".json"), func(t *testing.T) {
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			var c goldenCase
			if err := json.Unmarshal(data, &c); err != nil {
				t.Fatalf("decode %s: %v", file, err)
			}
			got := c
			got.Want = c.answer(t)
			if *update {
				if err := os.WriteFile(file, got.encode(), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			// Both sides through encode, so that only the answers count,
			// not how the file was laid out.
			if g, w := string(got.encode()), string(c.encode()); g != w {
				t.Errorf("%s: the walks answer otherwise (go test ./internal/tree -run Golden -update accepts it):\n%s", file, lineDiff(w, g))
			}
		})
	}
}

// lineDiff lists the lines only in want (-) and only in got (+).
func lineDiff(want, got string) string {
	wl, gl := strings.Split(want, "\n"), strings.Split(got, "\n")
	var b strings.Builder
	for _, l := range wl {
		if !slices.Contains(gl, l) {
			fmt.Fprintf(&b, "- %s\n", l)
		}
	}
	for _, l := range gl {
		if !slices.Contains(wl, l) {
			fmt.Fprintf(&b, "+ %s\n", l)
		}
	}
	return b.String()
}

// After gives what was recorded since a node, oldest first, on every
// branch.
func TestAfterGivesTheNewerNodesInOrder(t *testing.T) {
	x := NewIndex([]Node{{ID: 1}, {ID: 2, Parent: 1}, {ID: 5, Parent: 1}, {ID: 3, Parent: 2}})
	var got []int64
	for _, n := range x.After(1) {
		got = append(got, n.ID)
	}
	if !slices.Equal(got, []int64{2, 3, 5}) {
		t.Errorf("After(1) = %v, want [2 3 5]", got)
	}
	if n := len(x.After(5)); n != 0 {
		t.Errorf("After(5) gave %d nodes, want none", n)
	}
}
