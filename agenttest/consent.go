package agenttest

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/sweatpants-go/sweatpants/agents"
	"github.com/sweatpants-go/sweatpants/elicit"
	"github.com/sweatpants-go/sweatpants/internal/consent"
	"github.com/sweatpants-go/sweatpants/middleware"
	"github.com/sweatpants-go/sweatpants/policy"
)

// A turn run in process decides its tool calls as the service does: by
// the permission policy (the program's rules that Scope sets with
// policy.Program, the assistant's Policy within them, else the default,
// which asks before a tool with effects runs). An approval is a question
// like any other, answered by the scripted user; a denied call does not
// run, and the turn is told why, as in the service.

// guard decides each tool call of the run before it runs (package consent),
// asking the user's approval where the policy says ask.
func (r *run) guard(next middleware.Handler[agents.ToolCall, json.RawMessage]) middleware.Handler[agents.ToolCall, json.RawMessage] {
	return func(ctx context.Context, c agents.ToolCall) (json.RawMessage, error) {
		r.mu.Lock()
		r.calls++
		id := fmt.Sprintf("tool-%d", r.calls) // names the call's approval, as a recorded turn's call id does
		r.mu.Unlock()
		cons, err := consent.Guard{Remembered: r.remembered}.Decide(ctx, id, c)
		switch {
		case err != nil:
			return nil, err
		case cons.Denied != nil:
			r.line(deniedLine(c, cons.Denied))
			return nil, cons.Denied
		}
		call := cons.Call // the user's edit of the arguments, if any
		call.Decision = policy.Decision{Action: cons.Decision.Action, By: cons.By, Rule: cons.Decision.Rule, Redact: cons.Decision.Redact}
		return next(ctx, call)
	}
}

// remembered allows a tool the user allowed for the conversation, or
// always, on an approval earlier in the run.
func (r *run) remembered(pc policy.Call) (policy.Decision, string, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if approval, ok := r.allowed[toolKey{pc.Agent, pc.Tool}]; ok {
		return policy.Decision{Action: policy.Allow, By: "remembered", Rule: "allowed for this conversation"}, approval, true
	}
	return policy.Decision{}, "", false
}

// toolKey names a tool of an agent.
type toolKey struct{ agent, tool string }

// rememberLocked keeps what the user's answer resp to approval req allows
// beyond its call: the tool, for the rest of the run. r.mu is held.
func (r *run) rememberLocked(req elicit.Request, resp elicit.Response) {
	if req.Kind != elicit.Approve.Name || resp.Action != elicit.Accept {
		return
	}
	var (
		in elicit.ApprovalInput
		a  elicit.Approval
	)
	if json.Unmarshal(req.Input, &in) != nil || json.Unmarshal(resp.Content, &a) != nil {
		return
	}
	if a.Choice != elicit.AllowConversation && a.Choice != elicit.AllowAlways {
		return
	}
	if r.allowed == nil {
		r.allowed = map[toolKey]string{}
	}
	r.allowed[toolKey{in.Agent, in.Tool}] = req.ID
}
