// Package state is what an agent's state is at a node of a conversation:
// every change of a state is a node (tree.StateChange) holding the new
// value whole, and the state at a node is the last change on the path from
// the root to it. An edit, a branch switch, a rewind or a recovery moves
// along the tree, so the state follows by itself.
package state

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"sync"

	"github.com/sweatpants-go/sweatpants/internal/tree"
)

// Key names a state: its agent and its name.
type Key struct{ Agent, Name string }

// Value is a state's value and the node that set it (0: none did, the
// value is the state's initial one).
type Value struct {
	JSON json.RawMessage
	Node int64
}

// Index is the state at the end of a path: for each state, the last change
// on it. Reading one is a map lookup and the decoding of that change.
type Index struct {
	last map[Key]tree.Node
}

// Of indexes the state at the end of path, in one pass over it that reads
// only which state each change is of: the value is read from the last
// change alone, when it is asked for. A change whose payload does not read
// is left out.
func Of(path tree.Path) *Index {
	x := &Index{last: map[Key]tree.Node{}}
	for _, n := range path {
		if n.Kind != tree.StateChange {
			continue
		}
		if name, ok := nameOf(n.Payload); ok {
			x.last[Key{n.Agent, name}] = n
		}
	}
	return x
}

// nameOf reads the name of the state a change's payload is of. The payload
// is tree.StateRecord as tree.MustEncode writes it, the name before the
// value: the name is read where it is, without a JSON decoder running over
// the value, which is most of the cost of a branch switch otherwise. A
// payload of another shape, or a name with escapes, is decoded whole.
func nameOf(payload []byte) (string, bool) {
	const key = `,"name":"`
	if i := bytes.Index(payload, []byte(key)); i >= 0 {
		rest := payload[i+len(key):]
		if j := bytes.IndexByte(rest, '"'); j >= 0 && bytes.IndexByte(rest[:j], '\\') < 0 && bytes.HasPrefix(payload, []byte(`{"agent":`)) {
			return string(rest[:j]), true
		}
	}
	var k struct {
		Name string `json:"name"`
	}
	err := json.Unmarshal(payload, &k)
	return k.Name, err == nil
}

// Get returns the state named by k, and false when no change on the path
// set it.
func (x *Index) Get(k Key) (Value, bool) {
	n, ok := x.last[k]
	if !ok {
		return Value{}, false
	}
	return valueOf(n)
}

// All returns every state the path changed, by key.
func (x *Index) All() map[Key]Value {
	out := make(map[Key]Value, len(x.last))
	for k, n := range x.last {
		if v, ok := valueOf(n); ok {
			out[k] = v
		}
	}
	return out
}

// valueOf reads the value change n set.
func valueOf(n tree.Node) (Value, bool) {
	rec, err := tree.Decode[tree.StateRecord](n)
	if err != nil {
		return Value{}, false
	}
	return Value{JSON: rec.Value, Node: n.ID}, true
}

// Turn is the state as a turn sees it: the state on its branch up to the
// message that started it, and over it the changes the turn made, each at
// its call's place in the turn. A read at a place sees the changes made
// before it in the order of the turn's calls, whether the turn runs live or
// is replayed from its record, where the changes are known beforehand: so
// a replayed read reads what it read the first time. It is safe for
// concurrent use (calls of parallel lanes).
type Turn struct {
	base *Index
	mu   sync.Mutex
	own  map[Key][]change // each state's changes by this turn, in call order
	// backs are the blocks the turn tried and went back from
	// (agents.Fork): their changes are not seen after the going back.
	backs []back
}

// back is a tried block abandoned: the changes made within the block's
// call are not seen by reads from the call that went back on.
type back struct{ within, from []int }

type change struct {
	at    []int // the call's place: its id's numbers
	value Value
}

// Kinds are the kinds of a turn's recorded calls NewTurn reads: the
// changes, and the blocks tried and gone back from.
func Kinds() []tree.Kind { return []tree.Kind{tree.StateChange, tree.Fork, tree.ForkEnd} }

// NewTurn returns the state a turn sees, over base, knowing the changes
// the turn recorded before (its record, when it is replayed).
func NewTurn(base *Index, recorded []tree.Node) *Turn {
	t := &Turn{base: base, own: map[Key][]change{}}
	forks := map[int64]string{} // the call ids of the blocks tried, by node
	var backs []tree.Node
	for _, n := range recorded {
		switch n.Kind {
		case tree.StateChange:
			if rec, err := tree.Decode[tree.StateRecord](n); err == nil {
				t.add(Key{rec.Agent, rec.Name}, n.Ref, Value{JSON: rec.Value, Node: n.ID})
			}
		case tree.Fork:
			forks[n.ID] = n.Ref
		case tree.ForkEnd:
			backs = append(backs, n)
		}
	}
	// A block gone back from within a call the replay skips (a finished
	// tool) is not decided again: its going back is known from the record.
	for _, n := range backs {
		if rec, err := tree.Decode[tree.ForkEndRecord](n); err == nil && !rec.Forward && forks[rec.Fork] != "" {
			t.backs = append(t.backs, back{within: place(forks[rec.Fork]), from: place(n.Ref)})
		}
	}
	return t
}

// ForTurn is the state the turn started by node start sees on branch (the
// path it records on, from the root), knowing the changes it recorded
// before (the calls of its record).
func ForTurn(branch tree.Path, start int64, recorded []tree.Node) *Turn {
	for i, n := range branch {
		if n.ID == start {
			branch = branch[:i+1]
			break
		}
	}
	return NewTurn(Of(branch), recorded)
}

// Changed adds the change the turn just made as call id.
func (t *Turn) Changed(k Key, id string, v Value) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.add(k, id, v)
}

func (t *Turn) add(k Key, id string, v Value) {
	at := place(id)
	cs := t.own[k]
	i := len(cs)
	for i > 0 && before(at, cs[i-1].at) {
		i--
	}
	if i > 0 && !before(cs[i-1].at, at) { // the same call, recorded and made: once
		cs[i-1].value = v
		return
	}
	cs = append(cs, change{})
	copy(cs[i+1:], cs[i:])
	cs[i] = change{at: at, value: v}
	t.own[k] = cs
}

// Abandon says that the block tried as call block was gone back from by
// call from: reads from there on do not see the changes made within it.
func (t *Turn) Abandon(block, from string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.backs = append(t.backs, back{within: place(block), from: place(from)})
}

// Get returns the state named by k as a read made where call id next
// would be (durable.Peek) sees it, and false when neither the turn nor its
// branch changed it.
func (t *Turn) Get(k Key, next string) (Value, bool) {
	at := place(next)
	t.mu.Lock()
	cs := t.own[k]
	for i := len(cs) - 1; i >= 0; i-- {
		if before(cs[i].at, at) && !t.abandonedLocked(cs[i].at, at) {
			v := cs[i].value
			t.mu.Unlock()
			return v, true
		}
	}
	t.mu.Unlock()
	return t.base.Get(k)
}

// abandonedLocked reports whether a change made at place c is one a read
// at place at does not see: made within a block gone back from before at.
func (t *Turn) abandonedLocked(c, at []int) bool {
	for _, b := range t.backs {
		if len(c) > len(b.within) && !before(c[:len(b.within)], b.within) && !before(b.within, c[:len(b.within)]) && !before(at, b.from) {
			return true
		}
	}
	return false
}

// place reads a call id ("12-3", "12-3.2", "12-4.1.2") as the numbers after
// the turn's id, which order the turn's calls: a call's own calls come
// after it and before the next one.
func place(id string) []int {
	_, rest, _ := strings.Cut(id, "-")
	parts := strings.Split(rest, ".")
	out := make([]int, 0, len(parts))
	for _, p := range parts {
		n, err := strconv.Atoi(p)
		if err != nil {
			break
		}
		out = append(out, n)
	}
	return out
}

// before reports whether place a comes before place b in the turn's order
// of calls: by number, and a call before the calls it makes.
func before(a, b []int) bool {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return a[i] < b[i]
		}
	}
	return len(a) < len(b)
}
