package tree

import "testing"

func TestPathHead(t *testing.T) {
	tests := []struct {
		name string
		path Path
		want int64
	}{
		{"empty", nil, 0},
		{"one node", Path{nd(4, 0, UserMessage, "")}, 4},
		{"the last node", Path{nd(1, 0, UserMessage, ""), nd(2, 1, AssistantMessage, ""), nd(7, 2, UserMessage, "")}, 7},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.path.Head(); got != tt.want {
				t.Errorf("Head() = %d, want %d", got, tt.want)
			}
		})
	}
}

func TestPathContains(t *testing.T) {
	p := branches().PathTo(11) // 1 2 7 8 10 11
	tests := []struct {
		id   int64
		want bool
	}{
		{1, true}, {2, true}, {7, true}, {8, true}, {10, true}, {11, true},
		{0, false}, {3, false}, {9, false}, {12, false}, {99, false}, {-1, false},
	}
	for _, tt := range tests {
		if got := p.Contains(tt.id); got != tt.want {
			t.Errorf("Contains(%d) = %v, want %v", tt.id, got, tt.want)
		}
	}
	if Path(nil).Contains(1) {
		t.Error("an empty path contains node 1")
	}
}

func TestNewestOnPath(t *testing.T) {
	x := branches()
	tests := []struct {
		name string
		head int64
		ref  string
		kind Kind
		want int64 // 0: none
	}{
		{"the answer on the path, not the older one beside it", 11, "e1", ElicitResponse, 10},
		{"the first answer, on its own branch", 9, "e1", ElicitResponse, 9},
		{"the request", 11, "e1", ElicitRequest, 8},
		{"no answer yet on the path", 12, "e1", ElicitResponse, 0},
		{"the ref's node of another kind is off the path", 11, "e1", Notify, 0},
		{"a ref nobody carries", 11, "nope", ElicitRequest, 0},
		{"an empty path", 0, "e1", ElicitRequest, 0},
		{"a node without a ref is not found by the empty ref", 11, "", AssistantMessage, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n, ok := x.NewestOnPath(x.PathTo(tt.head), tt.ref, tt.kind)
			if got := found(n, ok); got != tt.want {
				t.Errorf("NewestOnPath(path to %d, %q, %s) = %d, want %d", tt.head, tt.ref, tt.kind, got, tt.want)
			}
		})
	}

	x.Drop([]int64{10, 11})
	n, ok := x.NewestOnPath(x.PathTo(9), "e1", ElicitResponse)
	if got := found(n, ok); got != 9 {
		t.Errorf("after dropping 10 and 11: NewestOnPath(path to 9) = %d, want 9", got)
	}
}

// found returns n's id, or 0 when it was not found.
func found(n Node, ok bool) int64 {
	if !ok {
		return 0
	}
	return n.ID
}
