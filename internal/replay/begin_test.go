package replay_test

import (
	"testing"

	"github.com/sweatpants-go/sweatpants/internal/replay"
	"github.com/sweatpants-go/sweatpants/internal/tree"
	"github.com/sweatpants-go/sweatpants/llm"
)

// A turn's first model call continues the newest call a turn's own code
// made before it on its path, with that call's whole request; a call made
// within a call (a tool's, a compaction's) is passed over, and a chain of
// bases as long as MaxBases starts afresh.
func TestATurnBeginsFromTheConversationsLastCall(t *testing.T) {
	sys := llm.Message{Role: llm.System, Content: "be brief"}
	hi := llm.Message{Role: llm.User, Content: "hi"}
	hello := llm.Message{Role: llm.Assistant, Content: "hello"}
	sample := func(id, parent int64, ref string, rec tree.SampleRecord) tree.Node {
		return tree.Node{ID: id, Parent: parent, Kind: tree.Sample, Ref: ref, Payload: tree.MustEncode(rec)}
	}
	path := tree.Path{
		{ID: 1, Kind: tree.UserMessage, Payload: tree.MustEncode(tree.Message{Text: "hi"})},
		sample(2, 1, "1-1", tree.SampleRecord{Request: llm.Request{Messages: []llm.Message{sys, hi}}}),
		sample(3, 2, "1-2", tree.SampleRecord{Base: 2, Kept: 2, Request: llm.Request{Messages: []llm.Message{hello}}}),
		sample(4, 3, "1-3.1", tree.SampleRecord{Request: llm.Request{Messages: []llm.Message{{Role: llm.User, Content: "a tool's own call"}}}}),
		{ID: 5, Parent: 4, Kind: tree.AssistantMessage, Payload: tree.MustEncode(tree.Message{Text: "hello"})},
		{ID: 6, Parent: 5, Kind: tree.UserMessage, Payload: tree.MustEncode(tree.Message{Text: "again"})},
	}
	p := replay.Before(path, 6)
	if p.Node != 3 || len(p.Request.Messages) != 3 || p.Request.Messages[2].Content != hello.Content {
		t.Errorf("Before = node %d with %d messages, want node 3 with its whole request of 3", p.Node, len(p.Request.Messages))
	}
	if p := replay.Before(path, 2); p.Node != 0 {
		t.Errorf("the first turn's call continues node %d, want none", p.Node)
	}

	// A chain of MaxBases calls back: the next turn starts afresh.
	long := tree.Path{path[0], path[1]}
	for i := int64(0); i < replay.MaxBases; i++ {
		id := 3 + i
		long = append(long, sample(id, id-1, "1-"+string(rune('a'+i%26)), tree.SampleRecord{Base: id - 1, Kept: 1, Request: llm.Request{Messages: []llm.Message{hello}}}))
	}
	next := long[len(long)-1].ID + 1
	long = append(long, tree.Node{ID: next, Parent: next - 1, Kind: tree.UserMessage})
	if p := replay.Before(long, next); p.Node != 0 {
		t.Errorf("a chain of %d bases is continued (node %d)", replay.MaxBases, p.Node)
	}
	if p := replay.Before(long[:len(long)-2], long[len(long)-2].ID); p.Node == 0 {
		t.Error("a chain one shorter is not continued")
	}
}
