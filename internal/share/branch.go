package share

import (
	"encoding/json"
	"time"

	"github.com/sweatpants-go/sweatpants/elicit"
	"github.com/sweatpants-go/sweatpants/internal/tree"
	"github.com/sweatpants-go/sweatpants/internal/words"
)

// Branch is a conversation's branch from its root to Node, as a link shows
// it and the export writes it: the messages, the questions and their
// answers, the tool calls with their results. Nothing recorded after Node
// is in it. A tool call's arguments are those its record kept: where a
// rule said to keep only their digest (the tool audit's redaction), the
// digest stands in their place; an approval shows the tool it asked
// about and the choice made, never the arguments.
type Branch struct {
	Title string    `json:"title"`
	Node  int64     `json:"node"`
	At    time.Time `json:"at"`
	Items []Item    `json:"items"`
}

// Item is one step of a branch. Kind is message, reply, side question,
// side reply, question, answer, tool, error or stopped turn.
type Item struct {
	ID    int64     `json:"id"`
	Kind  string    `json:"kind"`
	Agent string    `json:"agent,omitempty"`
	At    time.Time `json:"at"`
	Text  string    `json:"text,omitempty"`
	Tool  *Tool     `json:"tool,omitempty"`
}

// Tool is a tool call of a branch: the tool, its arguments or their
// digest, what was decided and by whom, its result or error.
type Tool struct {
	Name      string          `json:"name"`
	Args      json.RawMessage `json:"args,omitempty"`
	Digest    string          `json:"digest,omitempty"`
	Decision  string          `json:"decision,omitempty"`
	DecidedBy string          `json:"decided_by,omitempty"`
	Outcome   string          `json:"outcome"`
	Output    json.RawMessage `json:"output,omitempty"`
	Error     string          `json:"error,omitempty"`
}

// read reads the branch of nodes from the root to node, under title.
func read(title string, nodes []tree.Node, node int64) Branch {
	x := tree.NewIndex(nodes)
	path := x.PathTo(node)
	b := Branch{Title: title, Node: node, Items: []Item{}}
	approvals := map[string]bool{} // the ids of approvals asked on the branch
	for _, n := range path {
		b.At = n.At
		it := Item{ID: n.ID, Kind: words.Name(n.Kind), Agent: n.Agent, At: n.At}
		switch n.Kind {
		case tree.UserMessage, tree.AssistantMessage, tree.SideQuestion, tree.SideReply, tree.TurnError, tree.Stopped:
			m, err := tree.Decode[tree.Message](n)
			if err != nil {
				continue
			}
			it.Text = m.Text
			if n.Kind == tree.Stopped && it.Text == "" {
				it.Text = m.Partial
			}
		case tree.ElicitRequest:
			r, err := tree.Decode[elicit.Request](n)
			if err != nil {
				continue
			}
			switch {
			case r.Kind == elicit.Approve.Name:
				approvals[r.ID] = true
				var in elicit.ApprovalInput
				_ = json.Unmarshal(r.Input, &in)
				it.Text = "Asked to allow the tool " + in.Tool
			case words.IsCall(r):
				it.Text = words.Invoked(r)
			default:
				it.Text = r.Message
			}
		case tree.ElicitResponse:
			r, err := tree.Decode[elicit.Response](n)
			if err != nil {
				continue
			}
			if approvals[n.Ref] {
				// The choice alone: edited arguments stay out, as the
				// tool call's record says what ran.
				var a elicit.Approval
				if r.Action == elicit.Accept && json.Unmarshal(r.Content, &a) == nil && a.Choice != "" {
					it.Text = "choice: " + a.Choice
				} else {
					it.Text = string(r.Action)
				}
			} else {
				it.Text = words.Answer(r)
			}
		case tree.ToolCall:
			r, err := tree.Decode[tree.ToolRecord](n)
			if err != nil {
				continue
			}
			t := &Tool{Name: r.Tool, Digest: r.Digest, Decision: r.Decision, DecidedBy: r.DecidedBy,
				Outcome: r.Ended(), Output: r.Output, Error: r.Error}
			if r.Digest == "" && json.Valid(r.Input) {
				t.Args = r.Input
			}
			it.Tool = t
		default:
			continue
		}
		b.Items = append(b.Items, it)
	}
	return b
}
