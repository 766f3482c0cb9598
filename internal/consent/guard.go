// Package consent applies the permission policy (package policy) to the
// tool calls of a turn: the guard decides each call, asks the user's
// approval through the elicit machinery where the policy says ask, reads
// the user's "Allow for this conversation" choices from the branch, and
// makes the audit record of each call (tree.ToolRecord). It runs inside
// whatever records the turn — the conversation (package chat), or the
// pre-deploy check's dry run — which hands it the turn's record.
package consent

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"

	"github.com/sweatpants-go/sweatpants/agents"
	"github.com/sweatpants-go/sweatpants/elicit"
	"github.com/sweatpants-go/sweatpants/internal/durable"
	"github.com/sweatpants-go/sweatpants/internal/tree"
	"github.com/sweatpants-go/sweatpants/policy"
	"github.com/sweatpants-go/sweatpants/turn"
)

// The guard. Every tool call a turn makes is decided by the permission
// policy (package policy) before it runs: the rules of the program and of
// the assistant, under the user's remembered choices. An ask is an
// approval (elicit.Approve) asked within the tool's own call, as its first
// call: recorded like any question, so it waits through a restart and a
// replay answers it from the record. What was decided rides in the tool's
// node (tree.ToolRecord's audit fields), written in the commit that records
// the call: a finished call is answered from its node and never decided
// again, and an unfinished one takes from the record what it was decided
// then — an approval it asked, or its own calls, which it made only once
// allowed — so that no rule changed since turns a replay another way.

// Who decided a call, as tree.ToolRecord.DecidedBy says it, besides the
// policy's own "rule", "remembered" and "default".
const (
	ByUser       = "user"       // the user, on an approval
	ByUnattended = "unattended" // nobody could approve: denied
	ByExpired    = "expired"    // nobody approved before the approval expired: denied (expiry.go)
	// ByResumed is a call that had begun before a restart, under an allow
	// that no longer holds: it goes on as it began.
	ByResumed = "resumed"
)

// The outcomes of a tool call (tree.ToolRecord.Outcome).
const (
	OutcomeOK        = "ok"
	OutcomeError     = "error"
	OutcomeDenied    = "denied"
	OutcomeCancelled = "cancelled" // the user stopped it: a call cut off otherwise is not recorded
)

// Consent is what the guard made of a tool call.
type Consent struct {
	Decision policy.Decision
	By       string // who decided: tree.ToolRecord.DecidedBy
	// Approval is the call id of the approval that decided, or on which
	// the user made the remembered choice; "" for none.
	Approval string
	// Call is the call to run: the user's edit of its arguments, if any.
	Call agents.ToolCall
	// Denied is set when the call may not run.
	Denied *agents.DeniedError
}

// Guard decides the tool calls of one turn, live or in a dry run.
type Guard struct {
	Record durable.Journal
	// Remembered looks up the user's remembered choices for a call, and
	// the approval a choice was made on; nil has none.
	Remembered func(policy.Call) (policy.Decision, string, bool)
	// Always keeps an "Always allow" the user gave just now; nil keeps
	// nothing (a dry run).
	Always func(ctx context.Context, agent, tool string)
	// Ended reports whether an error of the approval's question is the
	// turn's own end (besides a done context), which records the call
	// cancelled rather than denied; nil knows none.
	Ended func(error) bool
}

// approvalOf is the call id of the approval of tool call id: the first
// call made within it.
func ApprovalOf(id string) string { return id + ".1" }

// decide decides tool call c, made as call id, from ctx: the tool's own
// scope, in which an approval is asked. An error is the turn's (a stop, a
// replay that diverged): nothing was decided.
func (g Guard) Decide(ctx context.Context, id string, c agents.ToolCall) (Consent, error) {
	pc := policy.Call{Agent: c.Agent, Tool: c.Tool, Args: c.Input, Effects: c.Info.Effects}
	var approval string
	remembered := func(pc policy.Call) (policy.Decision, bool) {
		if g.Remembered == nil {
			return policy.Decision{}, false
		}
		d, a, ok := g.Remembered(pc)
		approval = a
		return d, ok
	}
	if asked, ok := g.asked(ApprovalOf(id)); ok {
		// Asked before a restart: asked again, and answered from the
		// record if it was answered. The rules only name what asked.
		d := policy.Decide(ctx, pc, nil)
		if d.Action != policy.Ask {
			d = policy.Decision{Action: policy.Ask, Redact: d.Redact}
		}
		return g.ask(ctx, id, c, d, &asked)
	}
	d := policy.Decide(ctx, pc, remembered)
	if g.Record.Within(id) {
		// It made calls of its own before a restart, so it was allowed.
		if d.Action != policy.Allow {
			return Consent{Decision: policy.Decision{Action: policy.Allow, Redact: d.Redact}, By: ByResumed, Call: c}, nil
		}
	}
	switch d.Action {
	case policy.Allow:
		return Consent{Decision: d, By: d.By, Approval: approval, Call: c}, nil
	case policy.Ask:
		return g.ask(ctx, id, c, d, nil)
	}
	// Deny, finalDeny, or what cannot be read: fails closed.
	why := "a rule forbids it"
	if d.Rule != "" {
		why += ": " + d.Rule
	}
	return Consent{Decision: d, By: d.By, Approval: approval, Call: c,
		Denied: &agents.DeniedError{Tool: c.Tool, Why: why, Final: d.Action == policy.FinalDeny}}, nil
}

// asked returns the approval asked as call id, if the record holds one.
func (g Guard) asked(id string) (elicit.Request, bool) {
	n, ok := g.Record.Node(id)
	if !ok || n.Kind != tree.ElicitRequest {
		return elicit.Request{}, false
	}
	req, err := tree.Decode[elicit.Request](n)
	if err != nil {
		// An approval that does not read is still taken for one: asked
		// again, it fails the replay, rather than let the call run as if
		// it had been allowed.
		return elicit.Request{}, bytes.Contains(n.Payload, []byte(approvalKind))
	}
	return req, req.Kind == elicit.Approve.Name
}

// ask asks the user whether c may run, as d says to. asked is the approval
// the record holds, asked before a restart: it is asked again as it was
// worded then, so that a tool whose description changed since still
// finds its answer, provided it is about the same arguments.
func (g Guard) ask(ctx context.Context, id string, c agents.ToolCall, d policy.Decision, asked *elicit.Request) (Consent, error) {
	cons := Consent{Decision: d, By: ByUser, Approval: ApprovalOf(id), Call: c}
	var (
		message string
		in      elicit.ApprovalInput
		was     elicit.ApprovalInput
	)
	if asked != nil && json.Unmarshal(asked.Input, &was) == nil && durable.SameJSON(json.RawMessage(was.Args), c.Input) {
		message, in = asked.Message, was
	} else {
		message, in = approvalMessage(c), approvalInput(ctx, c)
	}
	askCtx := ctx
	if exp := expiryOf(ctx, d.Expires); exp > 0 {
		askCtx = turn.ExpiresIn(ctx, exp) // asked again after a restart, it keeps the time recorded
	}
	res, err := turn.Ask(askCtx, elicit.Approve, message, in)
	if err != nil {
		if ctx.Err() != nil || g.Ended != nil && g.Ended(err) || agents.EndsTurn(err) {
			cons.By = ByUnattended
			return cons, err // the turn's own end: a stop records the call cancelled
		}
		// Nothing could ask, or the answer does not read: no one approved.
		return unattended(cons), nil
	}
	switch res.Action {
	case elicit.Accept:
	case elicit.Expired:
		return expired(cons), nil
	default:
		return unattended(cons), nil
	}
	a := res.Content
	switch a.Choice {
	case elicit.AllowOnce, elicit.AllowConversation, elicit.AllowAlways:
	case elicit.DenyCall:
		why := "the user denied it"
		if a.Reason != "" {
			why += ": " + a.Reason
		}
		cons.Denied = &agents.DeniedError{Tool: c.Tool, Why: why}
		return cons, nil
	default:
		return unattended(cons), nil // a choice that does not read fails closed
	}
	if a.Args != "" {
		args, err := in.Edit(a.Args) // the fixed arguments as the call had them
		var edited bytes.Buffer
		if err != nil || json.Compact(&edited, args) != nil {
			return unattended(cons), nil
		}
		cons.Call.Input = edited.Bytes()
		// Edited, the call is decided again (edited.go): the answer's check
		// refused what it could see, this sees every level of the tool's
		// scope. A call that had begun with the edit before a restart goes
		// on as it began, whatever rule came since.
		redo, refused := decideEdit(ctx, policy.Call{Agent: c.Agent, Tool: c.Tool, Args: cons.Call.Input, Effects: c.Info.Effects})
		cons.Decision.Redact = cons.Decision.Redact || redo.Redact
		if refused && !g.Record.From(durable.Peek(ctx)) {
			redo.Redact = cons.Decision.Redact
			cons.Decision, cons.By = redo, redo.By
			cons.Denied = &agents.DeniedError{Tool: c.Tool, Why: "a rule forbids the arguments the user edited it to: " + ruleOf(redo),
				Final: redo.Action == policy.FinalDeny}
			return cons, nil
		}
	}
	if _, before := g.Record.Response(cons.Approval); a.Choice == elicit.AllowAlways && !before && g.Always != nil {
		g.Always(ctx, c.Agent, c.Tool) // given now, not replayed: kept once
	}
	return cons, nil
}

// unattended is cons denied because nobody approved it.
func unattended(cons Consent) Consent {
	cons.By = ByUnattended
	cons.Denied = &agents.DeniedError{Tool: cons.Call.Tool, Why: "nobody was there to approve it"}
	return cons
}

// approvalMessage is the question an approval of c asks: by the tool's
// title where it has one, else by the agent's and the tool's names.
func approvalMessage(c agents.ToolCall) string {
	if c.Info.Title != "" {
		return fmt.Sprintf("Allow “%s”?", c.Info.Title)
	}
	return fmt.Sprintf("Allow %s to use %s?", c.Agent, c.Tool)
}

// approvalInput is what an approval of c shows the user; ctx is the
// call's, in which the tool describes it.
func approvalInput(ctx context.Context, c agents.ToolCall) elicit.ApprovalInput {
	args := string(c.Input)
	var indented bytes.Buffer
	if json.Indent(&indented, c.Input, "", "  ") == nil {
		args = indented.String()
	}
	in := elicit.ApprovalInput{Agent: c.Agent, Tool: c.Tool, Description: c.Info.Description, Args: args, Effects: c.Info.Effects.Names(), Reason: c.Reason,
		Title: c.Info.Title, Fixed: c.Info.Fixed}
	if describe := c.Info.Describe; describe != nil {
		// A call the tool cannot word is shown by its arguments alone.
		in.Summary, _ = describe(ctx, c.Input)
	}
	if c.Info.Input != nil {
		in.Schema, _ = json.Marshal(c.Info.Input) // a schema derived from a Go type always encodes
	}
	return in
}
