package policy

// TEMPORARY (helper "cons"): a stand-in for the policy package that helper
// "pol" builds (Rule, Narrow, Decide), with the signatures it will have, so
// that the conversation's guard compiles and is tested before it lands.
// Delete this file when merging main once pol's work is there.

import (
	"context"
	"path"
)

// Rule is a stand-in for pol's Rule: an action and a tool, "agent/tool" or
// "tool", as globs.
type Rule struct {
	Action Action
	Tool   string
	Redact bool
	Source string
}

type rulesKey struct{}

// Narrow is a stand-in for pol's: rules for the calls made from ctx.
func Narrow(ctx context.Context, rules ...Rule) context.Context {
	if len(rules) == 0 {
		return ctx
	}
	outer, _ := ctx.Value(rulesKey{}).([]Rule)
	return context.WithValue(ctx, rulesKey{}, append(append([]Rule(nil), outer...), rules...))
}

func (r Rule) covers(c Call) bool {
	if ok, _ := path.Match(r.Tool, c.Agent+"/"+c.Tool); ok {
		return true
	}
	ok, _ := path.Match(r.Tool, c.Tool)
	return ok
}

// Decide is a stand-in for pol's, in the fixed order.
func Decide(ctx context.Context, call Call, remembered func(Call) (Decision, bool)) Decision {
	rules, _ := ctx.Value(rulesKey{}).([]Rule)
	redact := false
	for _, r := range rules {
		redact = redact || r.Redact && r.covers(call)
	}
	find := func(a Action) (Decision, bool) {
		for _, r := range rules {
			if r.Action == a && r.covers(call) {
				return Decision{Action: a, By: "rule", Rule: string(r.Action) + " " + r.Tool, Redact: redact}, true
			}
		}
		return Decision{}, false
	}
	for _, a := range []Action{FinalDeny, Deny} {
		if d, ok := find(a); ok {
			return d
		}
	}
	if remembered != nil {
		if d, ok := remembered(call); ok {
			d.Redact = d.Redact || redact
			return d
		}
	}
	for _, a := range []Action{Ask, Allow} {
		if d, ok := find(a); ok {
			return d
		}
	}
	if call.Effects != 0 {
		return Decision{Action: Ask, By: "default", Redact: redact}
	}
	return Decision{Action: Allow, By: "default", Redact: redact}
}
