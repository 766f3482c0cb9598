package tree

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/sweatpants-go/sweatpants/llm"
)

// loopRequests are the requests of a loop of n steps, as the agent loop
// makes them: each the one before, the model's tool call and its result.
func loopRequests(n int) []llm.Request {
	tools := []llm.ToolSpec{{Name: "step", Description: "Take a step", Parameters: []byte(`{"type":"object"}`)}}
	msgs := []llm.Message{{Role: llm.System, Content: "Be brief."}, {Role: llm.User, Content: "go"}}
	var out []llm.Request
	for i := range n {
		out = append(out, llm.Request{Messages: msgs, Tools: tools})
		id := fmt.Sprintf("c%d", i)
		msgs = append(msgs,
			llm.Message{Role: llm.Assistant, ToolCalls: []llm.ToolCall{{ID: id, Name: "step", Arguments: fmt.Sprintf(`{"n":%d}`, i)}}},
			llm.Message{Role: llm.Tool, ToolCallID: id, Content: fmt.Sprint(i + 1)})
	}
	return out
}

// recordLoop records reqs as the turn does, each against the one before,
// as nodes 1, 2, … of one path.
func recordLoop(reqs []llm.Request) Path {
	var path Path
	var prior Prior
	for i, req := range reqs {
		n := Node{ID: int64(i + 1), Parent: int64(i), Kind: Sample, Payload: MustEncode(prior.Record(req))}
		path = append(path, n)
		prior = Prior{Node: n.ID, Request: req}
	}
	return path
}

func TestALoopIsRecordedAsWhatIsNew(t *testing.T) {
	reqs := loopRequests(50)
	path := recordLoop(reqs)
	first, last := len(path[1].Payload), len(path[len(path)-1].Payload)
	if last > first+16 { // the step's numbers grow by a digit
		t.Errorf("the 50th step's record is %d bytes, the 2nd's %d: records grow with the loop", last, first)
	}
	// Rebuilt in order, as the pages read them, each extends the one
	// before in place; a call beside the 10th, as after an edit, continues
	// the same one differently. None changes what another reads.
	var reqsSeen Requests
	var rebuilt []SampleRecord
	beside := llm.Request{Messages: append(reqs[10].Messages[:len(reqs[10].Messages):len(reqs[10].Messages)], llm.Message{Role: llm.User, Content: "stop"}), Tools: reqs[10].Tools}
	fork := Node{ID: 100, Parent: 11, Kind: Sample, Payload: MustEncode(Prior{Node: 11, Request: reqs[10]}.Record(beside))}
	lookup := func(id int64) (Node, bool) {
		if id == fork.ID {
			return fork, true
		}
		return path.Node(id)
	}
	for i, n := range append(path[:len(path):len(path)], fork) {
		rec, err := reqsSeen.Whole(n, lookup)
		if err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
		if rec.Base != 0 || rec.Kept != 0 || rec.SameTools {
			t.Fatalf("step %d rebuilt still names its base: %+v", i, rec)
		}
		rebuilt = append(rebuilt, rec)
	}
	for i, rec := range rebuilt {
		want := beside
		if i < len(reqs) {
			want = reqs[i]
		}
		if got, want := MustEncode(rec.Request), MustEncode(want); !bytes.Equal(got, want) {
			t.Fatalf("step %d rebuilt as\n%s\nwant\n%s", i, got, want)
		}
	}
	// Rebuilt from nothing remembered, the newest call follows the chain.
	rec, err := new(Requests).Whole(path[len(path)-1], path.Node)
	if err != nil || !bytes.Equal(MustEncode(rec.Request), MustEncode(reqs[len(reqs)-1])) {
		t.Fatalf("the last step alone rebuilt as %s, %v", MustEncode(rec.Request), err)
	}
}

func TestARequestThatSharesNothingIsRecordedWhole(t *testing.T) {
	reqs := loopRequests(2)
	other := llm.Request{Messages: []llm.Message{{Role: llm.User, Content: "else"}}}
	rec := Prior{Node: 1, Request: reqs[1]}.Record(other)
	if rec.Base != 0 || len(rec.Request.Messages) != 1 {
		t.Fatalf("record %+v, want the request whole", rec)
	}
	// An earlier message changed: only what follows it is shared no more.
	changed := loopRequests(3)[2]
	changed.Messages = append([]llm.Message(nil), changed.Messages...)
	changed.Messages[2].ToolCalls = []llm.ToolCall{{ID: "c0", Name: "step", Arguments: `{"n":7}`}}
	rec = Prior{Node: 1, Request: reqs[1]}.Record(changed)
	if rec.Base != 1 || rec.Kept != 2 || !rec.SameTools || len(rec.Request.Messages) != 4 {
		t.Fatalf("record of a changed step: base %d, kept %d, same tools %v, %d messages; want 1, 2, true, 4", rec.Base, rec.Kept, rec.SameTools, len(rec.Request.Messages))
	}
}

func TestAWholeRecordWrittenBeforeBasesStillReads(t *testing.T) {
	req := loopRequests(3)[2]
	old := Node{ID: 7, Kind: Sample, Payload: []byte(`{"request":` + string(MustEncode(req)) + `,"latency_ms":3}`)}
	rec, err := new(Requests).Whole(old, func(int64) (Node, bool) { return Node{}, false })
	if err != nil || !bytes.Equal(MustEncode(rec.Request), MustEncode(req)) {
		t.Fatalf("old record read as %s, %v", MustEncode(rec.Request), err)
	}
}

func TestABrokenBaseIsNamed(t *testing.T) {
	path := recordLoop(loopRequests(3))
	notes := Node{ID: 1, Kind: Notify, Payload: []byte(`{}`)}
	tests := []struct {
		name string
		node func(int64) (Node, bool)
		want string
	}{
		{"missing", func(id int64) (Node, bool) { return Node{}, false }, "node 3 (sample): its base, node 2, is not in the tree"},
		{"not a model call", func(id int64) (Node, bool) {
			if id == 1 {
				return notes, true
			}
			return path.Node(id)
		}, "node 2 (sample): its base, node 1, is a notify, not a model call"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := new(Requests).Whole(path[2], tt.node)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want %q", err, tt.want)
			}
		})
	}
}
