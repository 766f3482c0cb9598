package store

import (
	"context"
	"encoding/json"
	"strconv"
	"testing"

	"github.com/sweatpants-go/sweatpants/internal/tree"
)

func TestALongChainIsWrittenWholeInOrder(t *testing.T) {
	contract(t, testALongChainIsWrittenWholeInOrder)
}

// testALongChainIsWrittenWholeInOrder appends a chain as long as
// PostgreSQL's one statement takes, then one longer (written another way
// there): each node hangs from the one before, HEAD is the last, and the
// nodes read back in the chain's order, their refs and payloads as given.
func testALongChainIsWrittenWholeInOrder(t *testing.T, target string) {
	if strconv.Itoa(pgChainMax) != pgChainMaxSQL {
		t.Fatalf("pgChainMax is %d and its spelling in SQL %s", pgChainMax, pgChainMaxSQL)
	}
	db := openTarget(t, target, Options{})
	ctx := context.Background()
	c, first := newConversationSaying(t, db, "s1", "c1", "hi")
	head := first.ID
	var want []tree.Node
	for _, n := range []int{pgChainMax, pgChainMax + 1} {
		chain := make([]tree.Node, n)
		for i := range chain {
			chain[i] = tree.Node{Conversation: c.ID, Kind: tree.Notify, Ref: "1-" + strconv.Itoa(len(want)+i),
				Payload: json.RawMessage(`{"n":` + strconv.Itoa(len(want)+i) + `}`)}
		}
		chain[0].Parent = head
		out, err := db.AppendChain(ctx, chain)
		if err != nil {
			t.Fatalf("a chain of %d: %v", n, err)
		}
		for i, o := range out {
			if i > 0 && o.Parent != out[i-1].ID || i == 0 && o.Parent != head {
				t.Errorf("a chain of %d: node %d hangs from %d, want the one before", n, i, o.Parent)
			}
		}
		head = out[n-1].ID
		want = append(want, out...)
	}
	got, nodes, err := db.Load(ctx, "s1", c.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Head != head {
		t.Errorf("HEAD = %d, want the last node %d", got.Head, head)
	}
	nodes = nodes[1:] // the first message
	if len(nodes) != len(want) {
		t.Fatalf("read back %d nodes, want %d", len(nodes), len(want))
	}
	for i, n := range nodes {
		w := want[i]
		if n.ID != w.ID || n.Parent != w.Parent || n.Ref != w.Ref || string(n.Payload) != string(w.Payload) {
			t.Errorf("node %d = {%d from %d %q %s}, want {%d from %d %q %s}", i, n.ID, n.Parent, n.Ref, n.Payload, w.ID, w.Parent, w.Ref, w.Payload)
		}
	}
}
