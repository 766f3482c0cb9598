package state_test

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/sweatpants-go/sweatpants/internal/state"
	"github.com/sweatpants-go/sweatpants/internal/tree"
)

// change is a StateChange node of agent a's state name, as call ref.
func change(id int64, ref, a, name, value string) tree.Node {
	return tree.Node{ID: id, Kind: tree.StateChange, Ref: ref, Agent: a,
		Payload: tree.MustEncode(tree.StateRecord{Agent: a, Name: name, Value: json.RawMessage(value)})}
}

func message(id int64) tree.Node {
	return tree.Node{ID: id, Kind: tree.UserMessage, Payload: json.RawMessage(`{"text":"hi"}`)}
}

// The state at the end of a path is the last change of each state on it;
// a state no change set is not there (its initial value stands).
func TestTheStateOfAPathIsItsLastChange(t *testing.T) {
	path := tree.Path{message(1), change(2, "1-1", "concierge", "plan", `["Lisbon"]`), message(3),
		change(4, "3-1", "concierge", "plan", `["Lisbon","Porto"]`), change(5, "3-2", "notes", "plan", `"other"`)}
	x := state.Of(path)
	if v, ok := x.Get(state.Key{Agent: "concierge", Name: "plan"}); !ok || string(v.JSON) != `["Lisbon","Porto"]` || v.Node != 4 {
		t.Errorf("concierge's plan = %s (node %d), %v; want the last change, node 4", v.JSON, v.Node, ok)
	}
	if v, ok := x.Get(state.Key{Agent: "notes", Name: "plan"}); !ok || string(v.JSON) != `"other"` {
		t.Errorf("another agent's state of the same name = %s, %v; want its own", v.JSON, ok)
	}
	if _, ok := x.Get(state.Key{Agent: "concierge", Name: "budget"}); ok {
		t.Error("a state never changed is on the path")
	}
	if v, _ := state.Of(path[:3]).Get(state.Key{Agent: "concierge", Name: "plan"}); string(v.JSON) != `["Lisbon"]` {
		t.Errorf("at node 3 the plan is %s; want the first change's", v.JSON)
	}
}

// A turn reads, at each place among its calls, its own changes made before
// that place (its calls' own calls come after them), else its branch's: the
// same whether the changes are being made or were recorded before.
func TestATurnReadsItsChangesInTheOrderOfItsCalls(t *testing.T) {
	key := state.Key{Agent: "a", Name: "s"}
	base := state.Of(tree.Path{message(1), change(2, "1-1", "a", "s", `"before"`), message(10)})
	recorded := []tree.Node{change(13, "10-2.2", "a", "s", `"in the tool"`), change(12, "10-1", "a", "s", `"first"`)}
	replayed := state.NewTurn(base, recorded)
	live := state.NewTurn(base, nil)
	live.Changed(key, "10-1", state.Value{JSON: json.RawMessage(`"first"`), Node: 12})
	live.Changed(key, "10-2.2", state.Value{JSON: json.RawMessage(`"in the tool"`), Node: 13})
	for _, tc := range []struct{ at, want string }{
		{"10-1", `"before"`},        // before the turn's first change
		{"10-2", `"first"`},         // before the tool call that changes it
		{"10-2.1", `"first"`},       // in the tool, before its change
		{"10-2.3", `"in the tool"`}, // in the tool, after it
		{"10-3", `"in the tool"`},   // after the tool
		{"10-2.2.1", `"in the tool"`},
	} {
		for name, turn := range map[string]*state.Turn{"replayed": replayed, "live": live} {
			if v, _ := turn.Get(key, tc.at); string(v.JSON) != tc.want {
				t.Errorf("%s, read at %s: %s; want %s", name, tc.at, v.JSON, tc.want)
			}
		}
	}
	replayed.Changed(key, "10-1", state.Value{JSON: json.RawMessage(`"first"`), Node: 12}) // made again as it replays
	if v, _ := replayed.Get(key, "10-2"); string(v.JSON) != `"first"` {
		t.Errorf("a change replayed over its record reads %s", v.JSON)
	}
}

// A block the turn tried and went back from (agents.Fork) keeps its
// changes to itself: read within the block they are there, read after the
// going back they are not, whether the turn runs live or is replayed.
func TestATriedBlockGoneBackFromLeavesTheStateAsItWas(t *testing.T) {
	key := state.Key{Agent: "a", Name: "s"}
	base := state.Of(tree.Path{message(1), change(2, "1-1", "a", "s", `"before"`), message(10)})
	recorded := []tree.Node{change(12, "10-1", "a", "s", `"first"`), change(13, "10-2.1", "a", "s", `"tried"`), change(14, "10-2.2.1", "a", "s", `"deeper"`), change(15, "10-5", "a", "s", `"after"`)}
	turn := state.NewTurn(base, recorded)
	turn.Abandon("10-2", "10-3")
	for _, tc := range []struct{ at, want string }{
		{"10-2.2", `"tried"`},  // within the block
		{"10-2.3", `"deeper"`}, // within the block, after a tool of its own
		{"10-3", `"first"`},    // the going back itself
		{"10-4", `"first"`},    // after it
		{"10-6", `"after"`},    // a change made after it
		{"10-20", `"after"`},   // a place whose number is a longer one
		{"10-21.1", `"after"`}, // likewise, within a call
	} {
		if v, _ := turn.Get(key, tc.at); string(v.JSON) != tc.want {
			t.Errorf("read at %s: %s; want %s", tc.at, v.JSON, tc.want)
		}
	}
	// Known from the record, as when the call that tried the block is
	// not run again on replay.
	fork := tree.Node{ID: 20, Kind: tree.Fork, Ref: "10-2"}
	end := tree.Node{ID: 21, Kind: tree.ForkEnd, Ref: "10-3", Payload: tree.MustEncode(tree.ForkEndRecord{Fork: 20})}
	fromRecord := state.NewTurn(base, append(recorded, fork, end))
	if v, _ := fromRecord.Get(key, "10-4"); string(v.JSON) != `"first"` {
		t.Errorf("a going back in the record: read after it %s, want the state before the block", v.JSON)
	}
	// A block numbered 2 is not block 20's prefix.
	other := state.NewTurn(base, []tree.Node{change(16, "10-20.1", "a", "s", `"twenty"`)})
	other.Abandon("10-2", "10-3")
	if v, _ := other.Get(key, "10-21"); string(v.JSON) != `"twenty"` {
		t.Errorf("a change within call 10-20 is taken for one within 10-2: %s", v.JSON)
	}
}

// chain is a path of n messages, each followed by a change of one of ten
// states.
func chain(n int) tree.Path {
	path := make(tree.Path, 0, 2*n)
	for i := range n {
		id := int64(2*i + 1)
		path = append(path, message(id), change(id+1, fmt.Sprintf("%d-1", id), "a", fmt.Sprint("s", i%10), fmt.Sprintf(`{"step":%d,"items":["one","two","three"]}`, i)))
	}
	return path
}

// BenchmarkRead reads a state with 1,000 changes on the path, through a
// turn, decoding it as agents.State does (target: p50 ≤ 10 µs).
func BenchmarkRead(b *testing.B) {
	turn := state.NewTurn(state.Of(chain(1000)), nil)
	key := state.Key{Agent: "a", Name: "s7"}
	b.ReportAllocs()
	for b.Loop() {
		v, ok := turn.Get(key, "2001-1")
		var out struct {
			Step  int
			Items []string
		}
		if !ok || json.Unmarshal(v.JSON, &out) != nil {
			b.Fatal("no state")
		}
	}
}

// BenchmarkSwitch indexes the state at the end of a path with 1,000
// changes, what a branch switch costs (target: ≤ 1 ms).
func BenchmarkSwitch(b *testing.B) {
	path := chain(1000)
	b.ReportAllocs()
	for b.Loop() {
		if _, ok := state.Of(path).Get(state.Key{Agent: "a", Name: "s3"}); !ok {
			b.Fatal("no state")
		}
	}
}

// A state's name is read right whatever it holds, and from a payload
// written in another order.
func TestANameIsReadWhateverItHolds(t *testing.T) {
	odd := `na"me,"name":"x\`
	path := tree.Path{change(1, "1-1", "a", odd, `{"name":"not this"}`),
		{ID: 2, Kind: tree.StateChange, Ref: "1-2", Agent: "a", Payload: json.RawMessage(`{"value":3,"name":"later","agent":"a"}`)}}
	x := state.Of(path)
	if v, ok := x.Get(state.Key{Agent: "a", Name: odd}); !ok || v.Node != 1 {
		t.Errorf("the state named %q: node %d, %v", odd, v.Node, ok)
	}
	if v, ok := x.Get(state.Key{Agent: "a", Name: "later"}); !ok || string(v.JSON) != "3" {
		t.Errorf("a payload in another order: %s, %v", v.JSON, ok)
	}
}
