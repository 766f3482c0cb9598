package templates

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"github.com/sweatpants-go/sweatpants/internal/inspector"
	"github.com/sweatpants-go/sweatpants/internal/tree"
)

// renderInspector renders the inspector of in and parses it.
func renderInspector(t *testing.T, in inspector.Inspection) *html.Node {
	t.Helper()
	var buf bytes.Buffer
	if err := Inspector(in).Render(t.Context(), &buf); err != nil {
		t.Fatal(err)
	}
	doc, err := html.Parse(&buf)
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

// wordsOf is the text of n with its white space as a reader sees it.
func wordsOf(n *html.Node) string { return strings.Join(strings.Fields(textOf(n)), " ") }

// treeOf is an inspection of nodes, each hung from the one before unless
// its Parent is set, with HEAD at head.
func treeOf(head int64, nodes ...tree.Node) inspector.Inspection {
	in := inspector.Inspection{Conversation: tree.Conversation{ID: "c", Head: head}, Nodes: map[int64]tree.Node{},
		Children: map[int64][]int64{}, OnPath: map[int64]bool{}}
	for i, n := range nodes {
		n.ID = int64(i + 1)
		if n.Parent == 0 {
			n.Parent = int64(i)
		}
		in.Nodes[n.ID] = n
		in.Children[n.Parent] = append(in.Children[n.Parent], n.ID)
	}
	in.Count = len(nodes)
	return in
}

// A tried block's Fork node says what was tried and how it ended, in words
// and not by colour alone: abandoned (the flow went back), adopted (it went
// forward), or still being tried; its ForkEnd node says what was decided.
func TestATriedBlockSaysHowItEnded(t *testing.T) {
	fork := func(parent int64, label string) tree.Node {
		return tree.Node{Parent: parent, Kind: tree.Fork, Ref: "1-1", Payload: tree.MustEncode(tree.ForkRecord{Label: label})}
	}
	end := func(parent, fork int64, forward bool) tree.Node {
		return tree.Node{Parent: parent, Kind: tree.ForkEnd, Ref: "1-2", Payload: tree.MustEncode(tree.ForkEndRecord{Fork: fork, Forward: forward, Tip: parent})}
	}
	in := treeOf(7,
		tree.Node{Kind: tree.UserMessage, Payload: tree.MustEncode(tree.Message{Text: "cheaper?"})}, // 1
		fork(1, "a cheaper hotel"), // 2, abandoned
		end(1, 2, false),           // 3, beside it
		fork(3, "a later flight"),  // 4, adopted
		end(4, 4, true),            // 5, at its tip
		fork(5, "a third airline"), // 6, being tried
		tree.Node{Parent: 6, Kind: tree.Notify, Payload: json.RawMessage(`{"message":"looking"}`)}, // 7
	)
	in.Ends = map[int64]tree.Node{2: in.Nodes[3], 4: in.Nodes[5]}
	doc := renderInspector(t, in)

	nodes := map[string]*html.Node{}
	for _, n := range findAll(doc, byTestID("tree-node")) {
		nodes[attr(n, "data-node")] = n
	}
	for _, tc := range []struct {
		node, fate, says string
	}{
		{"2", "abandoned", "tried: a cheaper hotel — ↩ abandoned (went back)"},
		{"4", "adopted", "tried: a later flight — ✓ adopted"},
		{"6", "trying", "tried: a third airline — … being tried"},
	} {
		n := nodes[tc.node]
		marks := findAll(n, byTestID("tried-fate"))
		if len(marks) == 0 {
			t.Errorf("node %s has no tried-fate", tc.node)
			continue
		}
		if got := attr(marks[0], "data-fate"); got != tc.fate {
			t.Errorf("node %s's fate %q, want %q", tc.node, got, tc.fate)
		}
		if got := wordsOf(findAll(n, byTag("summary"))[0]); !strings.Contains(got, tc.says) {
			t.Errorf("node %s reads %q, want %q in it", tc.node, got, tc.says)
		}
		if sign := findAll(marks[0], func(h *html.Node) bool { return attr(h, "aria-hidden") == "true" }); len(sign) != 1 {
			t.Errorf("node %s's sign is not hidden from screen readers, which read the words", tc.node)
		}
	}
	for id, want := range map[string]string{
		"3": "back: abandoned the block tried at #2 and went back to where it began",
		"5": "forward: adopted the block tried at #4",
	} {
		if got := wordsOf(findAll(nodes[id], byTag("summary"))[0]); !strings.Contains(got, want) {
			t.Errorf("node %s reads %q, want %q in it", id, got, want)
		}
	}
	// The abandoned block starts a branch of its own beside its end.
	if got := attr(nodes["2"], "class"); !strings.Contains(got, "tried-abandoned") {
		t.Errorf("the abandoned Fork node's class %q, want tried-abandoned", got)
	}
}

// The agents' state at a node picked names the node, says whether it is on
// HEAD's branch, links each value to the change that set it and to what
// made the change — the tool call, or the turn when no call is recorded —
// and offers the state at HEAD instead; the node picked is marked.
func TestTheStateAtANodePicked(t *testing.T) {
	in := treeOf(6,
		tree.Node{Kind: tree.UserMessage, Payload: tree.MustEncode(tree.Message{Text: "Plan a trip to Bergen"})},                                                      // 1
		tree.Node{Kind: tree.StateChange, Ref: "1-1.1", Agent: "travel"},                                                                                              // 2
		tree.Node{Kind: tree.ToolCall, Ref: "1-1", Payload: tree.MustEncode(tree.ToolRecord{Tool: "plan-trip", Input: json.RawMessage(`{"destination": "Bergen"}`)})}, // 3
		tree.Node{Kind: tree.StateChange, Ref: "1-2.1", Agent: "travel"},                                                                                              // 4
		tree.Node{Kind: tree.AssistantMessage, Payload: tree.MustEncode(tree.Message{Text: "Planned"})},                                                               // 5
		tree.Node{Parent: 1, Kind: tree.AssistantMessage, Payload: tree.MustEncode(tree.Message{Text: "Elsewhere"})},                                                  // 6
	)
	in.OnPath = map[int64]bool{1: true, 6: true}
	in.Selected = in.Nodes[5]
	in.State = []inspector.AgentState{
		{Agent: "travel", Name: "trips", Value: json.RawMessage(`["Bergen"]`), Node: 2, Call: in.Nodes[3], Turn: in.Nodes[1]},
		{Agent: "travel", Name: "budget", Value: json.RawMessage(`900`), Node: 4, Turn: in.Nodes[1]},
	}
	doc := renderInspector(t, in)
	state := one(t, doc, "agent-state")
	if got, want := wordsOf(findAll(state, byTag("h2"))[0]), "Agents' state at reply #5 “Planned”"; got != want {
		t.Errorf("heading %q, want %q", got, want)
	}
	if got, want := wordsOf(one(t, state, "state-where")), "Off HEAD's branch: this is the state on the node's own branch. Show the state at HEAD instead"; got != want {
		t.Errorf("where %q, want %q", got, want)
	}
	if got, want := attr(one(t, state, "state-unpick"), "href"), "/c/c/tree"; got != want {
		t.Errorf("the way back to HEAD's state %q, want %q", got, want)
	}
	by := findAll(state, byTestID("state-changed-by"))
	if got, want := texts(by), []string{`by tool call #3 plan-trip({"destination":"Bergen"})`, "in the turn of message #1 “Plan a trip to Bergen”"}; strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("made by %q, want %q", got, want)
	}
	for i, want := range []string{"#t-3", "#t-1"} {
		if got := attr(findAll(by[i], byTag("a"))[0], "href"); got != want {
			t.Errorf("made-by link %d goes to %q, want %q", i, got, want)
		}
	}
	for _, n := range findAll(doc, byTestID("tree-node")) {
		marked := len(findAll(n, byTestID("picked-mark"))) > 0
		if want := attr(n, "data-node") == "5"; marked != want {
			t.Errorf("node %s marked as picked: %v, want %v", attr(n, "data-node"), marked, want)
		}
		here := findAll(n, byTestID("state-here"))
		if len(here) != 1 || attr(here[0], "href") != "/c/c/tree?node="+attr(n, "data-node")+"#agent-state" {
			t.Errorf("node %s offers no link to the state at it", attr(n, "data-node"))
		}
	}
}

// A block left undecided (its turn ended without deciding) says so, and
// not that it is being tried.
func TestAnUndecidedBlockSaysSo(t *testing.T) {
	in := treeOf(3,
		tree.Node{Kind: tree.UserMessage, Payload: tree.MustEncode(tree.Message{Text: "cheaper?"})},
		tree.Node{Kind: tree.Fork, Ref: "1-1", Payload: tree.MustEncode(tree.ForkRecord{Label: "a cheaper hotel"})},
		tree.Node{Kind: tree.Stopped, Payload: tree.MustEncode(tree.Message{Text: "Stopped."})},
	)
	in.Undecided = map[int64]bool{2: true}
	doc := renderInspector(t, in)
	for _, n := range findAll(doc, byTestID("tree-node")) {
		if attr(n, "data-node") != "2" {
			continue
		}
		marks := findAll(n, byTestID("tried-fate"))
		if len(marks) == 0 || attr(marks[0], "data-fate") != "undecided" {
			t.Fatalf("the undecided block's marks %v, want data-fate undecided", marks)
		}
		if got, want := wordsOf(findAll(n, byTag("summary"))[0]), "left undecided (its turn ended without deciding)"; !strings.Contains(got, want) || strings.Contains(got, "being tried") {
			t.Errorf("the undecided block reads %q, want %q in it", got, want)
		}
	}
}
