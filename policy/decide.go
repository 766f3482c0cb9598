package policy

import (
	"context"
	"encoding/json"
	"strings"
	"unicode"
)

// Decide decides whether call may run under the rules of ctx's scope
// levels, in the fixed order the package documentation gives: finalDeny,
// deny, the user's remembered choices, ask, allow, then the default.
//
// remembered, which may be nil, looks up a choice the user made for such
// calls ("allow for this conversation", "always allow"). It is asked only
// when no finalDeny or deny applies, and its decision is taken as it is,
// By "remembered" unless it says otherwise: an Allow lifts any ask, a Deny
// or FinalDeny denies, an Ask asks even where an allow would apply, and a
// decision with any other action fails closed as a Deny.
func Decide(ctx context.Context, call Call, remembered func(Call) (Decision, bool)) Decision {
	var found [4]*compiled // the first rule to apply, per action
	var redact bool
	if ls := scopeLevels.Get(ctx); ls != nil {
		args := lazyArgs{raw: call.Args}
		for li := range ls.list {
			lv := ls.list[li]
			// Only the program's level allows: an inner allow lifts
			// nothing, so it is read only for its redact.
			allows := li == 0 && ls.program
			for i := range lv.rules {
				r := &lv.rules[i]
				rank := rankOf(r.action)
				decides := found[rank] == nil && (rank != rankAllow || allows)
				if !decides && !r.redact || !r.covers(&call) {
					continue
				}
				res := met
				if r.cond != nil {
					res = r.cond.eval(args.get())
				}
				if r.redact && res != missed {
					redact = true // keeping less is the safe side
				}
				// A condition that cannot be evaluated fails closed: a
				// restrictive rule applies, an allow does not.
				if decides && (res == met || res == unknown && rank != rankAllow) {
					found[rank] = r
				}
			}
		}
	}
	byRule := func(r *compiled) Decision {
		return Decision{Action: r.action, By: "rule", Rule: r.text, Redact: redact, Expires: r.expires}
	}
	for _, rank := range [...]int{rankFinalDeny, rankDeny} {
		if r := found[rank]; r != nil {
			return byRule(r)
		}
	}
	if remembered != nil {
		if d, ok := remembered(call); ok {
			if d.By == "" {
				d.By = "remembered"
			}
			d.Redact = d.Redact || redact
			switch d.Action {
			case Allow, Deny, FinalDeny:
				return d
			case Ask:
				if found[rankAsk] == nil {
					return d
				}
			default: // a choice that cannot be read fails closed
				d.Action = Deny
				return d
			}
		}
	}
	for _, rank := range [...]int{rankAsk, rankAllow} {
		if r := found[rank]; r != nil {
			return byRule(r)
		}
	}
	if call.Effects != 0 {
		return Decision{Action: Ask, By: "default", Redact: redact}
	}
	return Decision{Action: Allow, By: "default", Redact: redact}
}

// The ranks of the actions, strictest first: the order Decide applies them.
const (
	rankFinalDeny = iota
	rankDeny
	rankAsk
	rankAllow
)

func rankOf(a Action) int {
	switch a {
	case FinalDeny:
		return rankFinalDeny
	case Ask:
		return rankAsk
	case Allow:
		return rankAllow
	}
	return rankDeny
}

// lazyArgs decodes a call's arguments once, when the first condition
// needs them.
type lazyArgs struct {
	raw     json.RawMessage
	decoded bool
	v       any
	ok      bool
}

func (a *lazyArgs) get() (any, bool) {
	if !a.decoded {
		a.decoded = true
		var v any // here, so that only a decision that decodes allocates
		a.ok = json.Unmarshal(a.raw, &v) == nil
		if a.ok {
			markTwins(v)
		}
		a.v = v
	}
	return a.v, a.ok
}

// twin stands for the value of a key that another key of its object
// equals but for case. A tool's input decodes into a Go struct, whose
// fields take keys of any case, the last one winning: {"price":100,
// "PRICE":900} books at 900. Which value the tool sees the policy cannot
// say, so a condition on either key cannot be evaluated.
type twin struct{}

// markTwins replaces, in every object within v, the values of keys that
// differ but for case (as strings.EqualFold, which encoding/json matches
// fields by, tells) by twin{}.
func markTwins(v any) {
	switch x := v.(type) {
	case map[string]any:
		for _, e := range x {
			markTwins(e)
		}
		if len(x) > 16 {
			markTwinsByFold(x)
			return
		}
		for k := range x {
			for k2 := range x {
				if k2 != k && strings.EqualFold(k, k2) {
					x[k], x[k2] = twin{}, twin{}
				}
			}
		}
	case []any:
		for _, e := range x {
			markTwins(e)
		}
	}
}

// markTwinsByFold does markTwins' work on one large object, in time
// linear in its keys: keys that differ but for case fold to the same
// string, each character its case orbit's least.
func markTwinsByFold(obj map[string]any) {
	first := make(map[string]string, len(obj))
	for k := range obj {
		f := strings.Map(func(r rune) rune {
			least := r
			for o := unicode.SimpleFold(r); o != r; o = unicode.SimpleFold(o) {
				least = min(least, o)
			}
			return least
		}, k)
		if k0, seen := first[f]; seen {
			obj[k0], obj[k] = twin{}, twin{}
			continue
		}
		first[f] = k
	}
}
