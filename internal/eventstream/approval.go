package eventstream

import (
	"encoding/json"

	"github.com/sweatpants-go/sweatpants/elicit"
	"github.com/sweatpants-go/sweatpants/internal/tree"
)

// Approvals. A tool call waiting for the user's consent is a question of
// the approval kind (elicit.Approve), so it is announced as any question
// is (elicit.asked, elicit.answered), for the clients that answer every
// question alike, and then as what it is (approval.required,
// approval.resolved), for the clients that show consent in a way of their
// own. Both name the same elicit, answered the same way.

// The approval event types.
const (
	EventApprovalRequired = "approval.required" // ApprovalRequired: a tool call waits for the user's consent
	EventApprovalResolved = "approval.resolved" // ApprovalResolved: it was given or refused
)

// ApprovalRequired is the data of approval.required: which agent's tool
// wants to run, with which arguments, what it does and why the model
// wants it. Elicit is the id the decision is posted to (POST
// /c/:id/elicits/:eid, content elicit.Approval).
type ApprovalRequired struct {
	Recorded
	Elicit      string `json:"elicit"`
	Agent       string `json:"agent"`
	Tool        string `json:"tool"`
	Description string `json:"description,omitempty"`
	// Args are the call's arguments, as JSON.
	Args json.RawMessage `json:"args"`
	// Effects name what the tool does beyond reading: writes, spends,
	// device, network.
	Effects []string `json:"effects,omitempty"`
	// Reason is why the model wants the call, in its words, when it said.
	Reason string `json:"reason,omitempty"`
}

// ApprovalResolved is the data of approval.resolved: what was decided on
// approval Elicit, and by whom: "user" when someone answered it, "nobody"
// when it was closed unanswered, which counts as a deny — with Reason
// "expired" when it expired unanswered (policy.Rule.Expires). An approval the
// user stopped the turn on is resolved by no event: its run's
// run.completed ends it.
type ApprovalResolved struct {
	Recorded
	Elicit string `json:"elicit"`
	// Choice is once, conversation, always or deny (elicit.Approval).
	Choice  string `json:"choice"`
	Allowed bool   `json:"allowed"`
	By      string `json:"by"`
	// Args are the arguments the user edited, when they did: the call runs
	// with these.
	Args json.RawMessage `json:"args,omitempty"`
	// Reason is why the user denied it, in their words; for an approval
	// nobody answered before it expired, "expired".
	Reason string `json:"reason,omitempty"`
}

// ReasonExpired is the Reason of an approval.resolved whose approval
// expired unanswered: denied.
const ReasonExpired = "expired"

// approvalRequired returns the approval.required of request r, recorded
// as rec, when r asks for an approval.
func approvalRequired(rec Recorded, r elicit.Request) (ApprovalRequired, bool) {
	var in elicit.ApprovalInput
	if r.Kind != elicit.Approve.Name || json.Unmarshal(r.Input, &in) != nil {
		return ApprovalRequired{}, false
	}
	return ApprovalRequired{Recorded: rec, Elicit: r.ID, Agent: in.Agent, Tool: in.Tool, Description: in.Description,
		Args: asJSON(in.Args), Effects: in.Effects, Reason: in.Reason}, true
}

// approvalResolved returns the approval.resolved of answer r to approval
// eid, recorded as rec.
func approvalResolved(rec Recorded, eid string, r elicit.Response) ApprovalResolved {
	out := ApprovalResolved{Recorded: rec, Elicit: eid, Choice: elicit.DenyCall, By: "nobody"}
	if r.Action == elicit.Expired {
		out.Reason = ReasonExpired
		return out
	}
	var a elicit.Approval
	if r.Action != elicit.Accept || json.Unmarshal(r.Content, &a) != nil {
		return out
	}
	out.Choice, out.Allowed, out.By, out.Reason = a.Choice, a.Allowed(), "user", a.Reason
	if a.Args != "" {
		out.Args = asJSON(a.Args)
	}
	return out
}

// asJSON is arguments, written as JSON text, as JSON: compact when they
// are JSON, else the text as a JSON string.
func asJSON(s string) json.RawMessage {
	var v json.RawMessage
	if json.Unmarshal([]byte(s), &v) == nil {
		if b, err := json.Marshal(v); err == nil {
			return b
		}
	}
	b, _ := json.Marshal(s)
	return b
}

// answersApproval reports whether answer n answers an approval: its
// question, recorded under the same ref, is of the approval kind.
func answersApproval(x *tree.Index, n tree.Node) bool {
	return askedKind(x, n) == elicit.Approve.Name
}

// askedKind is the kind of the question answer n answers; "" when the
// question is not found.
func askedKind(x *tree.Index, n tree.Node) string {
	for _, id := range x.WithRef(n.Ref) {
		q, ok := x.Node(id)
		if !ok || q.Kind != tree.ElicitRequest {
			continue
		}
		var r struct {
			Kind string `json:"kind"`
		}
		json.Unmarshal(q.Payload, &r)
		return r.Kind
	}
	return ""
}

// asksApproval reports whether question n asks for an approval.
func asksApproval(n tree.Node) bool {
	var r struct {
		Kind string `json:"kind"`
	}
	return n.Kind == tree.ElicitRequest && json.Unmarshal(n.Payload, &r) == nil && r.Kind == elicit.Approve.Name
}

// eventCount is how many events node n gives: two for a tool call, for
// an approval's question and answer and for a method's call; for a
// method's answer, one for each progress report it recorded and two more;
// one for every other node that gives any.
func eventCount(x *tree.Index, n tree.Node) int {
	switch {
	case n.Kind == tree.ElicitResponse && answersMethod(x, n):
		return 2 + progressCount(n)
	case n.Kind == tree.ToolCall, asksApproval(n), callsMethod(n), n.Kind == tree.ElicitResponse && answersApproval(x, n):
		return 2
	}
	return 1
}
