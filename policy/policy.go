// Package policy decides whether a tool call may run: allow it, ask the
// user, deny it, or finalDeny it (a deny nothing can lift). A tool
// declares what it does beyond reading (Effect); rules (Rule) name tools by
// agent-qualified name or glob, optionally with a condition on their
// arguments, and are read from a rule file (Parse) or built in code.
//
// # Scope levels
//
// Rules are set in scope levels carried by the context, as every other
// setting is, and inherited by inner scopes: the program's (Program, from
// --policy and app.Config.Policy), then an agent's (agents.Assistant's
// Policy), a conversation's, an inner tool's (Narrow); NewLevel compiles a
// level's rules once, to set them in many contexts. The program's level
// is the outermost; every level inside it narrows and never widens. A
// context with no program's level (a test's, say) has no allow: there the
// default decides what no rule denies or asks.
//
// # The order of evaluation
//
// Decide looks at every rule that covers the call, at every level, and
// decides in this fixed order; the first that applies decides:
//
//  1. finalDeny: a finalDeny rule at any level. Nothing lifts it, not even
//     a remembered choice.
//  2. deny: a deny rule at any level. A remembered choice does not lift it.
//  3. the user's remembered choices ("allow for this conversation",
//     "always allow", looked up by Decide's callback): an Allow lifts
//     every ask below, a rule's or the default's.
//  4. ask: an ask rule at any level.
//  5. allow: an allow rule of the program's level.
//  6. the default: ask for a call with any Effect, allow for a read-only
//     one.
//
// So an inner level can make a call stricter but never looser: its deny
// beats an outer allow, its ask beats an outer allow and asks even where
// the default would allow, and its allow lifts nothing, neither an outer
// ask or deny nor the default ask for a tool with effects. An allow counts
// only at the program's level, which is the outermost, so an inner allow
// that agrees with it changes nothing either; the decision then names the
// program's rule. Within the order the action decides, not how specific a
// rule is: an allow of flights/search does not lift an ask of flights/*;
// write the ask narrower (with a condition, say) instead. Where several
// rules of the deciding action apply, the decision names the outermost,
// first in its level.
//
// # Conditions fail closed
//
// A condition that cannot be evaluated — its field is missing or null, the
// arguments are no JSON, the value is of another type than the rule's
// ("600" for price > 500), or the field is named twice in two cases
// ({"price":100,"PRICE":900}, of which a tool's Go input takes the last)
// — is neither met nor missed: a finalDeny, deny or ask rule with it
// applies, an allow rule does not. A rule that cannot be
// read at all (Check says why) fails closed too, when it reaches Decide:
// an unknown action denies, a tool pattern that cannot be read covers
// every tool for a restrictive rule and none for an allow.
//
// # Redaction
//
// Decision.Redact is set when any rule that covers the call at any level
// says redact and its condition is met or cannot be evaluated, whatever
// the decision and whichever rule made it: the record then keeps a digest
// of the arguments instead of them.
package policy

import (
	"encoding/json"
	"time"
)

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
	// Expires, on an Ask, is how long the approval waits before it
	// expires and the call is denied: the deciding ask rule's Expires; 0
	// for the program's default.
	Expires time.Duration
}
