package store_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/sweatpants-go/sweatpants/internal/store"
	"github.com/sweatpants-go/sweatpants/internal/store/storetest"
	"github.com/sweatpants-go/sweatpants/internal/tree"
)

// treeOpsPerIter is how many operations one benchmark iteration of
// BenchmarkTreeOps performs, so that a single iteration (-benchtime 1x)
// still gives stable percentiles.
const treeOpsPerIter = 500

// treeSizes are the conversation sizes BenchmarkTreeOps measures on. The
// large tree is built through Append, the only write path the package
// exports, one transaction per node.
var treeSizes = []int{1_000, 1_000_000}

// BenchmarkTreeOps measures the tree operations of the store on a
// conversation that already holds many nodes: appending at HEAD, moving
// HEAD between branches (as rewind, switch and recover do), and forking (an
// edit or a changed answer: a node hung from an earlier node). Each
// iteration performs treeOpsPerIter operations; p50-µs and p99-µs are
// per operation, setup-s is how long building the tree took.
func BenchmarkTreeOps(b *testing.B) {
	for _, size := range treeSizes {
		b.Run("nodes="+strconv.Itoa(size), func(b *testing.B) {
			ctx := context.Background()
			db := openTreeDB(b)
			start := time.Now()
			conv, mid := buildChain(b, db, size)
			setup := time.Since(start)
			b.Logf("building a chain of %d nodes with Append took %v", size, setup.Round(time.Millisecond))

			report := func(b *testing.B, lat []time.Duration) {
				p := percentiles(lat, 0.50, 0.99)
				b.ReportMetric(float64(p[0].Nanoseconds())/1e3, "p50-µs")
				b.ReportMetric(float64(p[1].Nanoseconds())/1e3, "p99-µs")
				b.ReportMetric(setup.Seconds(), "setup-s")
			}

			b.Run("append", func(b *testing.B) {
				tip, err := db.Conversation(ctx, benchSession, conv)
				if err != nil {
					b.Fatal(err)
				}
				head := tip.Head
				var lat []time.Duration
				for i := 0; b.Loop(); i++ {
					for j := range treeOpsPerIter {
						n := tree.Node{Conversation: conv, Parent: head, Kind: tree.Notify, Ref: fmt.Sprintf("a%d-%d", i, j), Payload: benchPayload(j)}
						t0 := time.Now()
						got, err := db.Append(ctx, n, tree.AppendOptions{})
						if err != nil {
							b.Fatal(err)
						}
						lat = append(lat, time.Since(t0))
						head = got.ID
					}
				}
				report(b, lat)
			})

			b.Run("move-head", func(b *testing.B) {
				// Back and forth between the middle of the chain and its
				// tip: a rewind, then a recover.
				tip, err := db.Conversation(ctx, benchSession, conv)
				if err != nil {
					b.Fatal(err)
				}
				targets := [2]int64{mid, tip.Head}
				moves := [2]tree.Move{{Action: tree.ActSwitch, Detail: "back"}, {Action: tree.ActRecover, Detail: "forth"}}
				var lat []time.Duration
				for b.Loop() {
					for j := range treeOpsPerIter {
						t0 := time.Now()
						if _, err := db.MoveHead(ctx, conv, targets[j%2], moves[j%2]); err != nil {
							b.Fatal(err)
						}
						lat = append(lat, time.Since(t0))
					}
				}
				report(b, lat)
			})

			b.Run("fork", func(b *testing.B) {
				// An edit of the message in the middle of the chain: a new
				// sibling of it, made HEAD and logged.
				var lat []time.Duration
				for b.Loop() {
					for j := range treeOpsPerIter {
						n := tree.Node{Conversation: conv, Parent: mid, Kind: tree.UserMessage, Payload: benchPayload(j)}
						opts := tree.AppendOptions{Fork: true, Log: &tree.Move{Action: tree.ActEdit, Detail: "edit " + strconv.Itoa(j)}}
						t0 := time.Now()
						if _, err := db.Append(ctx, n, opts); err != nil {
							b.Fatal(err)
						}
						lat = append(lat, time.Since(t0))
					}
				}
				report(b, lat)
			})
		})
	}
}

// benchSession owns the conversations of the store benchmarks.
const benchSession = "bench"

// openTreeDB opens a fresh database, crash-safe (the default), in the
// benchmark's temporary directory.
func openTreeDB(b *testing.B) *store.DB {
	b.Helper()
	return storetest.Open(b, store.Options{Durability: store.CrashSafe})
}

// buildChain creates a conversation and appends n nodes to it, each hanging
// from the one before, shaped like a long run of turns: a user message
// every ten nodes and primitive calls with call ids in between. It returns
// the conversation's id and the id of the user message nearest the middle.
func buildChain(b *testing.B, db *store.DB, n int) (conv string, mid int64) {
	b.Helper()
	ctx := context.Background()
	if err := db.EnsureSession(ctx, benchSession); err != nil {
		b.Fatal(err)
	}
	c, err := db.CreateConversation(ctx, tree.Conversation{ID: "tree-" + strconv.Itoa(n), Session: benchSession, Agent: "bench"})
	if err != nil {
		b.Fatal(err)
	}
	var turn, head int64
	for i := range n {
		node := tree.Node{Conversation: c.ID, Parent: head, Kind: tree.UserMessage, Payload: benchPayload(i)}
		if i%10 != 0 {
			node.Kind, node.Ref = tree.Notify, strconv.FormatInt(turn, 10)+"-"+strconv.Itoa(i%10)
		}
		got, err := db.Append(ctx, node, tree.AppendOptions{})
		if err != nil {
			b.Fatalf("append node %d: %v", i, err)
		}
		head = got.ID
		if node.Kind == tree.UserMessage {
			turn = got.ID
			if i <= n/2 {
				mid = got.ID
			}
		}
	}
	return c.ID, mid
}

// benchPayload returns a payload of about a hundred bytes, the size of a
// short message or progress report.
func benchPayload(i int) json.RawMessage {
	return json.RawMessage(fmt.Sprintf(`{"message":"step %d of a long conversation, recorded as a node","fraction":0.5}`, i))
}

// percentiles returns the given quantiles (0 < q ≤ 1) of d, nearest rank.
func percentiles(d []time.Duration, qs ...float64) []time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	out := make([]time.Duration, len(qs))
	if len(s) == 0 {
		return out
	}
	for i, q := range qs {
		k := int(math.Ceil(q*float64(len(s)))) - 1
		out[i] = s[min(max(k, 0), len(s)-1)]
	}
	return out
}
