package policy

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// compiled is a rule made ready for Decide: its globs and condition
// compiled once, when the rule is narrowed into a scope, so a decision
// allocates nothing for them.
type compiled struct {
	action Action // Deny when the rule's own is unknown: it fails closed
	text   string // the rule as Rule.String gives it, for the decision
	agent  glob   // matches every agent for a Tool with no agent part
	tool   glob
	cond   *cond // nil: every call
	redact bool
	// expires is an ask rule's Expires.
	expires time.Duration
	// broken is set when the rule's Tool cannot be read: a restrictive
	// rule then covers every call, an allow none.
	broken bool
}

// compile compiles r. It returns the compiled rule even when r cannot be
// read as written, made to fail closed, with the error that says why.
func compile(r Rule) (compiled, error) {
	c := compiled{action: r.Action, text: r.String(), redact: r.Redact}
	var errs []error
	switch r.Action {
	case Allow, Ask, Deny, FinalDeny:
	default:
		c.action = Deny
		errs = append(errs, fmt.Errorf("unknown action %q (want allow, ask, deny or finalDeny)", r.Action))
	}
	switch {
	case r.Expires < 0:
		errs = append(errs, fmt.Errorf("expires %s: an approval's expiry is a positive duration", r.Expires))
	case r.Expires > 0 && r.Action != Ask:
		errs = append(errs, fmt.Errorf("expires is said of an ask rule's approval, not of %s", r.Action))
	case r.Expires > 0:
		c.expires = r.Expires
	}
	var err error
	if c.agent, c.tool, err = compileTool(r.Tool); err != nil {
		c.broken = true
		errs = append(errs, err)
	}
	if r.When != nil {
		if c.cond, err = compileCond(*r.When); err != nil {
			errs = append(errs, err)
		}
	}
	return c, errors.Join(errs...)
}

// compileTool compiles a rule's tool pattern, "agent/tool" or "tool".
func compileTool(pattern string) (agent, tool glob, err error) {
	if pattern == "" {
		return glob{}, glob{}, errors.New(`no tool: name one as "agent/tool" or "tool", globs allowed`)
	}
	if strings.ContainsFunc(pattern, isSpace) {
		return glob{}, glob{}, fmt.Errorf("bad tool %q: a tool pattern has no spaces", pattern)
	}
	a, t, qualified := strings.Cut(pattern, "/")
	if !qualified {
		a, t = "*", pattern
	}
	if a == "" || t == "" || strings.Contains(t, "/") {
		return glob{}, glob{}, fmt.Errorf(`bad tool %q: want "agent/tool" or "tool", each part a non-empty glob`, pattern)
	}
	if agent, err = compileGlob(a); err != nil {
		return glob{}, glob{}, fmt.Errorf("bad glob %q: %w", a, err)
	}
	if tool, err = compileGlob(t); err != nil {
		return glob{}, glob{}, fmt.Errorf("bad glob %q: %w", t, err)
	}
	return agent, tool, nil
}

func isSpace(r rune) bool {
	return r == ' ' || r == '\t' || r == '\n' || r == '\r' || r == '\v' || r == '\f'
}

// covers reports whether c is about the call's tool at all: with a
// broken pattern, a restrictive rule is about every tool and an allow
// about none.
func (c *compiled) covers(call *Call) bool {
	if c.broken {
		return c.action != Allow
	}
	return c.tool.match(call.Tool) && c.agent.match(call.Agent)
}

// The operators of a condition.
const (
	opEq   = "="
	opNe   = "!="
	opLt   = "<"
	opLe   = "<="
	opGt   = ">"
	opGe   = ">="
	opGlob = "~"
)

// valueKind is the JSON type a condition compares with.
type valueKind uint8

const (
	kindNumber valueKind = iota + 1
	kindString
	kindBool
)

// cond is a compiled Condition. A cond that could not be compiled has
// kind 0, and can never be evaluated: it fails closed.
type cond struct {
	path []string // nil: the arguments themselves
	op   string
	kind valueKind
	num  float64
	str  string
	b    bool
	glob glob
}

// compileCond compiles c. The cond it returns is usable even with an
// error: one that is never met nor missed.
func compileCond(c Condition) (*cond, error) {
	bad := &cond{}
	path, err := compileField(c.Field)
	if err != nil {
		return bad, err
	}
	k := &cond{path: path, op: c.Op}
	switch v := c.Value.(type) {
	case string:
		k.kind, k.str = kindString, v
	case bool:
		k.kind, k.b = kindBool, v
	default:
		f, ok := number(v)
		if !ok {
			return bad, fmt.Errorf("%s: the value %v (%T) is no number, string or boolean", c.Field, v, v)
		}
		k.kind, k.num = kindNumber, f
	}
	switch c.Op {
	case opEq, opNe:
	case opLt, opLe, opGt, opGe:
		if k.kind != kindNumber {
			return bad, fmt.Errorf("%s %s %s: %s compares numbers, and %s is none", c.Field, c.Op, formatValue(c.Value), c.Op, formatValue(c.Value))
		}
	case opGlob:
		if k.kind != kindString {
			return bad, fmt.Errorf("%s ~ %s: ~ matches a string against a glob, and %s is none", c.Field, formatValue(c.Value), formatValue(c.Value))
		}
		if k.glob, err = compileGlob(k.str); err != nil {
			return bad, fmt.Errorf("%s ~ %s: bad glob: %w", c.Field, formatValue(c.Value), err)
		}
	default:
		return bad, fmt.Errorf("unknown operator %q (want =, !=, <, <=, >, >= or ~)", c.Op)
	}
	return k, nil
}

// compileField splits a condition's field into its path: "." is the
// arguments themselves, else names and indexes joined by dots.
func compileField(field string) ([]string, error) {
	if field == "." {
		return nil, nil
	}
	if field == "" {
		return nil, errors.New(`no field: name one ("price", "passenger.name"), or "." for the arguments themselves`)
	}
	path := strings.Split(field, ".")
	for _, p := range path {
		if p == "" {
			return nil, fmt.Errorf(`bad field %q: names joined by single dots, or "." alone`, field)
		}
		if strings.ContainsFunc(p, func(r rune) bool { return isSpace(r) || strings.ContainsRune(`"#=!<>~`, r) }) {
			return nil, fmt.Errorf("bad field %q: a field has no spaces, quotes, # or operators", field)
		}
	}
	return path, nil
}

// outcome is a condition's result: met, missed, or unknown when it
// cannot be evaluated (a missing field, another type), which fails
// closed.
type outcome uint8

const (
	missed outcome = iota
	met
	unknown
)

// eval evaluates k on the decoded arguments.
func (k *cond) eval(args any, ok bool) outcome {
	if k.kind == 0 || !ok {
		return unknown
	}
	v := args
	for _, p := range k.path {
		switch x := v.(type) {
		case map[string]any:
			if v, ok = x[p]; !ok {
				return unknown
			}
		case []any:
			i, err := strconv.Atoi(p)
			if err != nil || i < 0 || i >= len(x) {
				return unknown
			}
			v = x[i]
		default:
			return unknown
		}
	}
	var res bool
	switch x := v.(type) {
	case float64:
		if k.kind != kindNumber {
			return unknown
		}
		switch k.op {
		case opEq:
			res = x == k.num
		case opNe:
			res = x != k.num
		case opLt:
			res = x < k.num
		case opLe:
			res = x <= k.num
		case opGt:
			res = x > k.num
		case opGe:
			res = x >= k.num
		}
	case string:
		if k.kind != kindString {
			return unknown
		}
		switch k.op {
		case opEq:
			res = x == k.str
		case opNe:
			res = x != k.str
		case opGlob:
			res = k.glob.match(x)
		}
	case bool:
		if k.kind != kindBool {
			return unknown
		}
		res = (x == k.b) == (k.op == opEq)
	default: // null, an object or an array
		return unknown
	}
	if res {
		return met
	}
	return missed
}
