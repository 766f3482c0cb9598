// Package policy decides whether a tool call may run: allow, ask the user,
// deny, or finalDeny (a deny nothing can lift). A tool declares what it does
// (Effects); rules match tools by agent-qualified name or glob, optionally
// on their arguments; the program sets rules, and an agent or a
// conversation narrows them through the scoped context, never widens them.
//
// The evaluation order is fixed: finalDeny, deny, the user's remembered
// choices, ask, allow, then the default (ask for a tool with effects,
// allow for a read-only one).
package policy

import "encoding/json"

// Effect is what a tool does beyond reading; a read-only tool has none.
type Effect uint8

const (
	Writes  Effect = 1 << iota // changes data: books, deletes, sends
	Spends                     // spends money
	Device                     // touches the user's device
	Network                    // reaches a server outside the program
)

// Action is what a rule, a remembered choice or the default says of a call.
type Action string

const (
	Allow     Action = "allow"
	Ask       Action = "ask"
	Deny      Action = "deny"
	FinalDeny Action = "finalDeny"
)

// Call is a tool call as the policy sees it.
type Call struct {
	Agent   string
	Tool    string
	Args    json.RawMessage
	Effects Effect
}

// Decision is what the policy decided for a call, and on what grounds.
type Decision struct {
	Action Action
	// By is "rule", "remembered" or "default".
	By string
	// Rule is the rule that decided, as written, with where it was set
	// ("deny flights/cancel* (policy.rules:3)"); empty for the default.
	Rule string
	// Redact, set by a rule, says not to keep the call's arguments in the
	// record: a digest stands for them.
	Redact bool
}
