package inspector_test

import (
	"encoding/json"
	"testing"

	"github.com/sweatpants-go/sweatpants/examples/demo"
	"github.com/sweatpants-go/sweatpants/internal/apperr"
	"github.com/sweatpants-go/sweatpants/internal/chat"
	"github.com/sweatpants-go/sweatpants/internal/chat/chattest"
	"github.com/sweatpants-go/sweatpants/internal/inspector"
	"github.com/sweatpants-go/sweatpants/internal/kindset"
	"github.com/sweatpants-go/sweatpants/internal/offline"
	"github.com/sweatpants-go/sweatpants/internal/registry"
	"github.com/sweatpants-go/sweatpants/internal/store"
	"github.com/sweatpants-go/sweatpants/internal/tree"
)

const session = "dev"

// recorder appends nodes to one conversation in the store, as the chat
// service records them.
type recorder struct {
	t    *testing.T
	db   *store.DB
	conv string
}

// newRecorder starts a chat service on a fresh database and records a new
// conversation of the session in it.
func newRecorder(t *testing.T) (*chat.Service, *recorder) {
	t.Helper()
	svc, db := chattest.New(t, chat.Config{Assistants: registry.New(demo.Agents(demo.Options{})...), Kinds: kindset.New(demo.Kinds()...), Model: offline.New()})
	if err := db.EnsureSession(t.Context(), session); err != nil {
		t.Fatal(err)
	}
	if _, err := db.CreateConversation(t.Context(), tree.Conversation{ID: "c1", Session: session, Agent: "concierge", Title: "Trips"}); err != nil {
		t.Fatal(err)
	}
	return svc, &recorder{t: t, db: db, conv: "c1"}
}

// add appends n under parent, which becomes HEAD; branch says parent is
// not HEAD (a new branch beside what hangs from it).
func (r *recorder) add(parent int64, branch bool, n tree.Node) tree.Node {
	r.t.Helper()
	n.Conversation, n.Parent = r.conv, parent
	n, err := r.db.Append(r.t.Context(), n, tree.AppendOptions{Fork: branch})
	if err != nil {
		r.t.Fatal(err)
	}
	return n
}

func message(kind tree.Kind, text string) tree.Node {
	return tree.Node{Kind: kind, Payload: tree.MustEncode(tree.Message{Text: text})}
}

func change(ref, value string) tree.Node {
	return tree.Node{Kind: tree.StateChange, Ref: ref, Agent: "travel",
		Payload: tree.MustEncode(tree.StateRecord{Agent: "travel", Name: "trips", Value: json.RawMessage(value)})}
}

func toolCall(ref, input string) tree.Node {
	return tree.Node{Kind: tree.ToolCall, Ref: ref, Agent: "travel",
		Payload: tree.MustEncode(tree.ToolRecord{Agent: "travel", Tool: "plan-trip", Input: json.RawMessage(input), Output: json.RawMessage(`"planned"`)})}
}

// twoTrips records a trip planned to Bergen, then the message edited into a
// trip to Oslo, where HEAD stays: each branch's plan-trip call changes the
// state to its trip. It returns the nodes by name.
func twoTrips(r *recorder) map[string]tree.Node {
	n := map[string]tree.Node{}
	n["hello"] = r.add(0, false, message(tree.UserMessage, "Hello"))
	n["hi"] = r.add(n["hello"].ID, false, message(tree.AssistantMessage, "Hi"))
	for _, city := range []string{"Bergen", "Oslo"} {
		m := r.add(n["hi"].ID, city == "Oslo", message(tree.UserMessage, "Plan a trip to "+city))
		ref := func(call string) string { return jsonInt(m.ID) + "-" + call }
		n[city] = m
		n[city+" change"] = r.add(m.ID, false, change(ref("1.1"), `[{"destination":"`+city+`"}]`))
		n[city+" call"] = r.add(n[city+" change"].ID, false, toolCall(ref("1"), `{"destination":"`+city+`"}`))
		n[city+" reply"] = r.add(n[city+" call"].ID, false, message(tree.AssistantMessage, "Your trip to "+city+" is planned"))
	}
	return n
}

func jsonInt(id int64) string { return string(tree.MustEncode(id)) }

// The inspector shows the agents' state at any node a developer picks, on
// HEAD's branch or another: the state on the path to that node, each value
// with the change that set it, the tool call that made the change, and the
// turn it was made in.
func TestTheStateAtAnyNode(t *testing.T) {
	svc, r := newRecorder(t)
	n := twoTrips(r)
	inspect := func(q inspector.Query) inspector.Inspection {
		t.Helper()
		in, err := inspector.Inspect(t.Context(), svc, session, r.conv, q)
		if err != nil {
			t.Fatal(err)
		}
		return in
	}
	for _, tc := range []struct {
		name   string
		q      inspector.Query
		want   string // the value of travel · trips, "" for none
		set    string // the node that set it
		onPath bool
	}{
		{"HEAD", inspector.Query{}, `[{"destination":"Oslo"}]`, "Oslo change", false},
		{"the other branch's reply", inspector.Query{Node: n["Bergen reply"].ID}, `[{"destination":"Bergen"}]`, "Bergen change", false},
		{"the other branch's change itself", inspector.Query{Node: n["Bergen change"].ID}, `[{"destination":"Bergen"}]`, "Bergen change", false},
		{"the other branch before its change", inspector.Query{Node: n["Bergen"].ID}, "", "", false},
		{"HEAD's branch", inspector.Query{Node: n["Oslo call"].ID}, `[{"destination":"Oslo"}]`, "Oslo change", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := inspect(tc.q)
			if got, want := in.Selected.ID, tc.q.Node; got != want {
				t.Errorf("selected node %d, want %d", got, want)
			}
			if tc.q.Node != 0 && in.SelectedOnPath != tc.onPath {
				t.Errorf("selected node on HEAD's path: %v, want %v", in.SelectedOnPath, tc.onPath)
			}
			if tc.want == "" {
				if len(in.State) != 0 {
					t.Errorf("state %+v, want none", in.State)
				}
				return
			}
			if len(in.State) != 1 {
				t.Fatalf("state %+v, want travel · trips alone", in.State)
			}
			s := in.State[0]
			city := tc.set[:len(tc.set)-len(" change")]
			if got, want := string(s.Value), tc.want; got != want {
				t.Errorf("value %s, want %s", got, want)
			}
			if got, want := s.Node, n[tc.set].ID; got != want {
				t.Errorf("set at node %d, want %d", got, want)
			}
			if got, want := s.Call.ID, n[city+" call"].ID; got != want {
				t.Errorf("changed by call node %d, want %d (the plan-trip call)", got, want)
			}
			if got, want := s.Turn.ID, n[city].ID; got != want {
				t.Errorf("changed in the turn of node %d, want %d", got, want)
			}
		})
	}

	t.Run("an unknown node", func(t *testing.T) {
		_, err := inspector.Inspect(t.Context(), svc, session, r.conv, inspector.Query{Node: 999})
		if apperr.CodeOf(err) != apperr.NotFound {
			t.Errorf("err = %v, want NotFound", err)
		}
	})
}

// A tried block's Fork node is shown with how it ended: abandoned when the
// flow went back (the ForkEnd hangs beside it), adopted when it went
// forward (the ForkEnd hangs at the block's tip); the state at HEAD is the
// adopted block's, and a node of the abandoned one shows the state tried
// there, made in its turn.
func TestTriedBlocksShowHowTheyEnded(t *testing.T) {
	svc, r := newRecorder(t)
	m := r.add(0, false, message(tree.UserMessage, "Find me something cheaper"))
	ref := func(call string) string { return jsonInt(m.ID) + "-" + call }
	back := r.add(m.ID, false, tree.Node{Kind: tree.Fork, Ref: ref("1"), Payload: tree.MustEncode(tree.ForkRecord{Label: "a cheaper hotel"})})
	tried := r.add(back.ID, false, change(ref("1.1"), `"hostel"`))
	backEnd := r.add(m.ID, true, tree.Node{Kind: tree.ForkEnd, Ref: ref("2"), Payload: tree.MustEncode(tree.ForkEndRecord{Fork: back.ID, Tip: tried.ID})})
	fwd := r.add(backEnd.ID, false, tree.Node{Kind: tree.Fork, Ref: ref("3"), Payload: tree.MustEncode(tree.ForkRecord{Label: "a later flight"})})
	kept := r.add(fwd.ID, false, change(ref("3.1"), `"late flight"`))
	fwdEnd := r.add(kept.ID, false, tree.Node{Kind: tree.ForkEnd, Ref: ref("4"), Payload: tree.MustEncode(tree.ForkEndRecord{Fork: fwd.ID, Forward: true, Tip: kept.ID})})
	r.add(fwdEnd.ID, false, message(tree.AssistantMessage, "A later flight it is"))

	in, err := inspector.Inspect(t.Context(), svc, session, r.conv, inspector.Query{})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := in.Ends[back.ID].ID, backEnd.ID; got != want {
		t.Errorf("the end of the abandoned block is node %d, want %d", got, want)
	}
	if got, want := in.Ends[fwd.ID].ID, fwdEnd.ID; got != want {
		t.Errorf("the end of the adopted block is node %d, want %d", got, want)
	}
	if len(in.State) != 1 || string(in.State[0].Value) != `"late flight"` {
		t.Errorf("state at HEAD %+v, want the adopted block's \"late flight\"", in.State)
	}

	in, err = inspector.Inspect(t.Context(), svc, session, r.conv, inspector.Query{Node: tried.ID})
	if err != nil {
		t.Fatal(err)
	}
	if len(in.State) != 1 || string(in.State[0].Value) != `"hostel"` {
		t.Fatalf("state in the abandoned block %+v, want \"hostel\"", in.State)
	}
	if s := in.State[0]; s.Call.ID != 0 || s.Turn.ID != m.ID {
		t.Errorf("made by call %d in turn %d, want no call recorded, in the turn of %d", s.Call.ID, s.Turn.ID, m.ID)
	}
	if in.SelectedOnPath {
		t.Error("a node of the abandoned block is on HEAD's path")
	}
}

// An inspected reflog entry shows the branch recovering it would bring
// back: for the asking of a side question, the flow it was asked beside
// (here a reply), not the side thread (tree.RefEntry.State,
// tree.Index.FlowTip).
func TestAnInspectedSideEntryShowsWhatRecoveringItBrings(t *testing.T) {
	svc, r := newRecorder(t)
	msg := r.add(0, false, message(tree.UserMessage, "Plan a trip"))
	q := r.add(msg.ID, false, message(tree.AssistantMessage, "Where to?")) // an ended turn: nothing resumes
	side, err := r.db.Append(t.Context(), tree.Node{Conversation: r.conv, Parent: q.ID, Kind: tree.SideQuestion, Payload: tree.MustEncode(tree.Message{Text: "Is it warm?"})},
		tree.AppendOptions{Fork: true, Aside: true, Log: &tree.Move{Action: tree.ActFork, Detail: "Is it warm?"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.db.Append(t.Context(), tree.Node{Conversation: r.conv, Parent: side.ID, Kind: tree.SideReply, Payload: tree.MustEncode(tree.Message{Text: "Yes."})},
		tree.AppendOptions{Fork: true, Aside: true}); err != nil {
		t.Fatal(err)
	}
	entries, err := r.db.Reflog(t.Context(), r.conv)
	if err != nil {
		t.Fatal(err)
	}
	var fork int64
	for _, e := range entries {
		if e.Action == tree.ActFork {
			fork = e.ID
		}
	}
	in, err := inspector.Inspect(t.Context(), svc, session, r.conv, inspector.Query{At: fork})
	if err != nil {
		t.Fatal(err)
	}
	if got := in.Path[len(in.Path)-1].ID; got != q.ID {
		t.Errorf("the inspected side entry's branch ends at node %d, want the reply it was asked beside (%d)", got, q.ID)
	}
}
