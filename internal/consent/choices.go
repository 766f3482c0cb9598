package consent

import (
	"bytes"
	"encoding/json"

	"github.com/sweatpants-go/sweatpants/elicit"
	"github.com/sweatpants-go/sweatpants/internal/tree"
)

// The user's choices for the conversation. An approval answered "Allow for
// this conversation" lets its tool run without asking on the branch it was
// answered on: the choice is the answer's node, so a branch that leaves the
// path before it (an edit, a switch) does not have it, and one recovered
// from the reflog has it again, with no state of its own to keep in step.

// Choices are the "Allow for this conversation" answers of a turn's branch,
// read from its path as it grows: each node is read once in a turn, so a
// tool call pays only for what was recorded since the one before.
type Choices struct {
	read     int   // how many nodes of the path were read
	last     int64 // the last of them, to tell that the path still holds them
	asked    map[string]toolKey
	allowing map[toolKey]string // tool → the approval that allowed it
}

// toolKey names a tool of an agent.
type toolKey struct{ agent, tool string }

// Allowed returns the approval on path whose answer allowed agent's tool
// for the conversation, the latest if several did. The caller keeps ch from running concurrently.
func (ch *Choices) Allowed(path tree.Path, agent, tool string) (string, bool) {
	if ch.read > len(path) || ch.read > 0 && path[ch.read-1].ID != ch.last {
		*ch = Choices{} // another path than the one read: read it whole
	}
	for _, n := range path[ch.read:] {
		ch.add(n)
	}
	if ch.read = len(path); ch.read > 0 {
		ch.last = path[ch.read-1].ID
	}
	approval, ok := ch.allowing[toolKey{agent, tool}]
	return approval, ok
}

// approvalKind is how an approval's kind reads in its recorded request.
const approvalKind = `"kind":"approval"`

// add reads node n of the path.
func (ch *Choices) add(n tree.Node) {
	switch n.Kind {
	case tree.ElicitRequest:
		if !bytes.Contains(n.Payload, []byte(approvalKind)) { // most questions are not approvals: not decoded
			return
		}
		var req struct {
			Kind  string
			Input struct{ Agent, Tool string }
		}
		if json.Unmarshal(n.Payload, &req) != nil || req.Kind != elicit.Approve.Name {
			return
		}
		if ch.asked == nil {
			ch.asked = map[string]toolKey{}
		}
		ch.asked[n.Ref] = toolKey{req.Input.Agent, req.Input.Tool}
	case tree.ElicitResponse:
		key, ok := ch.asked[n.Ref]
		if !ok {
			return
		}
		var resp struct {
			Action  elicit.Action
			Content elicit.Approval
		}
		if json.Unmarshal(n.Payload, &resp) != nil || resp.Action != elicit.Accept || resp.Content.Choice != elicit.AllowConversation {
			return
		}
		if ch.allowing == nil {
			ch.allowing = map[toolKey]string{}
		}
		ch.allowing[key] = n.Ref
	}
}
