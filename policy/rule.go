package policy

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// Rule says what to do with the calls of the tools it names: allow them,
// ask the user, deny them, or finalDeny them (a deny nothing lifts). A
// program builds rules in code as values, or reads them from a file
// (Parse):
//
//	policy.Rule{Action: policy.Deny, Tool: "flights/cancel*"}
//	policy.Rule{Action: policy.Ask, Tool: "flights/book", When: policy.If("price", ">", 500)}
type Rule struct {
	Action Action
	// Tool names the tools the rule is about: "agent/tool", or "tool" for
	// a tool of that name whatever its agent. Each part is a glob in the
	// syntax of path.Match (*, ?, [a-z], \ to quote): "flights/book*",
	// "*/delete*", "weather/*". A tool made by agents.Func belongs to the
	// agent whose code calls it.
	Tool string
	// When, if set, narrows the rule to the calls whose arguments meet
	// it; nil is every call of the tool.
	When *Condition
	// Redact says to keep a digest of the call's arguments in the record
	// instead of the arguments.
	Redact bool
	// Expires, on an ask rule, is how long its approval waits for the
	// user: unanswered by then, it expires and the call is denied. Zero
	// takes the program's default (none unless configured). Written
	// "expires 10m" in a rule file, any Go duration.
	Expires time.Duration
	// Source says where the rule was set, for a reader of a decision:
	// "policy.rules:3", "agent concierge", "conversation". Parse sets it.
	Source string
}

// Condition is a test of a call's arguments: the value at Field compared
// with Value by Op.
type Condition struct {
	// Field is a path into the arguments' JSON: names of object fields
	// joined by dots ("price", "passenger.name"), a number indexing an
	// array ("legs.0.to"), or "." for the arguments themselves when they
	// are a single value.
	Field string
	// Op is =, !=, <, <=, >, >= or ~. = and != compare a number, a string
	// or a boolean with a value of the same type; <, <=, > and >= compare
	// numbers; ~ matches a string against Value as a glob (a * crossing
	// every character, / included).
	Op string
	// Value is a number (any Go integer or float type), a string or a
	// boolean.
	Value any
}

// If returns the condition that the value at field compares with value
// by op, for a Rule's When: policy.If("price", ">", 500). Check reports a
// condition that cannot be read.
func If(field, op string, value any) *Condition {
	return &Condition{Field: field, Op: op, Value: value}
}

// String gives the rule as a line of a rule file, then where it was set
// in parentheses: "ask flights/book if price > 500 (policy.rules:3)".
func (r Rule) String() string {
	s := r.written()
	if r.Source != "" {
		s += " (" + r.Source + ")"
	}
	return s
}

// written gives the rule as a line of a rule file, which Parse reads back
// as the same rule.
func (r Rule) written() string {
	var b strings.Builder
	b.WriteString(string(r.Action))
	b.WriteByte(' ')
	b.WriteString(r.Tool)
	if r.When != nil {
		b.WriteString(" if ")
		b.WriteString(r.When.String())
	}
	if r.Redact {
		b.WriteString(" redact")
	}
	if r.Expires != 0 {
		b.WriteString(" expires ")
		b.WriteString(r.Expires.String())
	}
	return b.String()
}

// String gives the condition as a rule file writes it: price > 500,
// name = "Ann Lee".
func (c Condition) String() string {
	return c.Field + " " + c.Op + " " + formatValue(c.Value)
}

// formatValue writes a condition's value so that the parser reads it back
// as the same value: a string bare when it reads as itself, else quoted.
func formatValue(v any) string {
	switch x := v.(type) {
	case string:
		if bareString(x) {
			return x
		}
		return strconv.Quote(x)
	case bool:
		return strconv.FormatBool(x)
	}
	if f, ok := number(v); ok {
		return strconv.FormatFloat(f, 'g', -1, 64)
	}
	return fmt.Sprintf("%v", v)
}

// bareString reports whether s reads back as the string s when written
// without quotes: one word, not a number or a boolean, with nothing a
// line's reader takes for something else.
func bareString(s string) bool {
	if s == "" || s == "true" || s == "false" || s[0] == '"' || s[0] == '#' || looksNumeric(s) {
		return false
	}
	for _, r := range s {
		if r <= ' ' || r == 0x7f || !strconv.IsPrint(r) {
			return false
		}
	}
	return s != "redact" && s != "if"
}

// number returns v as a float64 when it is a Go number, finite.
func number(v any) (float64, bool) {
	var f float64
	switch x := v.(type) {
	case float64:
		f = x
	case float32:
		f = float64(x)
	case int:
		f = float64(x)
	case int8:
		f = float64(x)
	case int16:
		f = float64(x)
	case int32:
		f = float64(x)
	case int64:
		f = float64(x)
	case uint:
		f = float64(x)
	case uint8:
		f = float64(x)
	case uint16:
		f = float64(x)
	case uint32:
		f = float64(x)
	case uint64:
		f = float64(x)
	default:
		return 0, false
	}
	return f, !math.IsInf(f, 0) && !math.IsNaN(f)
}

// Check reports what is wrong with each rule that cannot be applied as
// written: an unknown action, a bad tool pattern, a condition that cannot
// be read. Each error names the rule and where it was set. Parse checks
// its rules; a program checks those it builds in code at start-up, since
// Decide takes a rule it cannot read the strict way (see the package
// documentation) rather than fail a call.
func Check(rules ...Rule) error {
	var errs []error
	for _, r := range rules {
		if _, err := compile(r); err != nil {
			errs = append(errs, fmt.Errorf("rule %s: %w", r, err))
		}
	}
	return errors.Join(errs...)
}
