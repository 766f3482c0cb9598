package policy

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
)

// Parse reads rules from a rule file, one rule a line:
//
//	# Comments run from a # that begins a word to the end of the line.
//	finalDeny */delete*
//	ask       flights/book  if price > 500 expires 10m
//	allow     weather/*
//	allow     flights/search redact
//	deny      mail/send     if to ~ "*@competitor.example"
//
// A line is an action (allow, ask, deny or finalDeny), a tool pattern
// (Rule.Tool), then, in any order, an optional condition "if FIELD OP
// VALUE" (Condition), an optional "redact", and, on an ask rule, an
// optional "expires DURATION" (Rule.Expires: "expires 10m"). A value is a number, true
// or false, a string in double quotes with Go's escapes, or any other
// word, which is a string: "business" and business are the same value,
// "500" and 500 are not. Blank lines and comments are skipped.
//
// name names the file in errors and in each rule's Source, "name:line".
// Every line that cannot be read is an error that names it and says what
// is wrong; with any, Parse returns no rules.
func Parse(name string, r io.Reader) ([]Rule, error) {
	var rules []Rule
	var errs []error
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if n == 1 {
			line = strings.TrimPrefix(line, "\ufeff")
		}
		rule, ok, err := parseLine(line)
		if err == nil && ok {
			rule.Source = name + ":" + strconv.Itoa(n)
			if _, err = compile(rule); err == nil {
				rules = append(rules, rule)
			}
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("%s:%d: %w", name, n, err))
		}
	}
	if err := sc.Err(); err != nil {
		errs = append(errs, fmt.Errorf("%s: %w", name, err))
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return rules, nil
}

// lineReader reads the words of one line of a rule file.
type lineReader struct {
	s string
	i int
}

// more skips spaces and reports whether anything but a comment is left.
func (l *lineReader) more() bool {
	for l.i < len(l.s) && isSpace(rune(l.s[l.i])) {
		l.i++
	}
	return l.i < len(l.s) && l.s[l.i] != '#'
}

// word reads a run of characters up to a space, or to one of stop.
func (l *lineReader) word(stop string) string {
	start := l.i
	for l.i < len(l.s) && !isSpace(rune(l.s[l.i])) && !strings.ContainsRune(stop, rune(l.s[l.i])) {
		l.i++
	}
	return l.s[start:l.i]
}

// opChars are the characters operators are made of.
const opChars = "=!<>~"

// parseLine reads one line: a rule, or nothing (ok false) for a blank
// line or a comment.
func parseLine(line string) (Rule, bool, error) {
	l := &lineReader{s: line}
	if !l.more() {
		return Rule{}, false, nil
	}
	var r Rule
	switch a := Action(l.word("")); a {
	case Allow, Ask, Deny, FinalDeny:
		r.Action = a
	default:
		return r, false, fmt.Errorf("unknown action %q (want allow, ask, deny or finalDeny)", a)
	}
	if !l.more() {
		return r, false, fmt.Errorf(`%s names no tool: want "agent/tool" or "tool", globs allowed`, r.Action)
	}
	r.Tool = l.word("")
	after := "the tool"
	for l.more() {
		switch w := l.word(""); w {
		case "redact":
			if r.Redact {
				return r, false, errors.New("redact is said twice")
			}
			r.Redact, after = true, "redact"
		case "expires":
			if r.Expires != 0 {
				return r, false, errors.New("expires is said twice")
			}
			w := ""
			if l.more() {
				w = l.word("")
			}
			d, err := time.ParseDuration(w)
			if err != nil || d <= 0 {
				return r, false, fmt.Errorf("expires wants a positive duration such as 10m or 90s, not %q", w)
			}
			r.Expires, after = d, "expires"
		case "if":
			if r.When != nil {
				return r, false, errors.New("a rule has one condition (a second if)")
			}
			c, err := parseCondition(l)
			if err != nil {
				return r, false, err
			}
			r.When, after = &c, "the condition"
		default:
			return r, false, fmt.Errorf(`unexpected %q after %s: a rule may go on with "if FIELD OP VALUE", "redact" and "expires DURATION", nothing else`, w, after)
		}
	}
	return r, true, nil
}

// parseCondition reads "FIELD OP VALUE", after an if.
func parseCondition(l *lineReader) (Condition, error) {
	var c Condition
	if !l.more() {
		return c, errors.New(`if names no condition: want FIELD OP VALUE, such as price > 500`)
	}
	c.Field = l.word(opChars + `"`)
	if c.Field == "" {
		return c, fmt.Errorf(`the condition names no field before %q: want FIELD OP VALUE, such as price > 500`, l.word(""))
	}
	if !l.more() {
		return c, fmt.Errorf("the condition on %s has no operator (want =, !=, <, <=, >, >= or ~)", c.Field)
	}
	start := l.i
	for l.i < len(l.s) && strings.ContainsRune(opChars, rune(l.s[l.i])) {
		l.i++
	}
	c.Op = l.s[start:l.i]
	switch c.Op {
	case opEq, opNe, opLt, opLe, opGt, opGe, opGlob:
	case "":
		return c, fmt.Errorf("the condition on %s has no operator before %q (want =, !=, <, <=, >, >= or ~)", c.Field, l.word(""))
	default:
		return c, fmt.Errorf("unknown operator %q (want =, !=, <, <=, >, >= or ~)", c.Op)
	}
	if !l.more() {
		return c, fmt.Errorf("the condition %s %s has no value", c.Field, c.Op)
	}
	v, err := parseValue(l, c.Op == opGlob)
	if err != nil {
		return c, fmt.Errorf("%s %s: %w", c.Field, c.Op, err)
	}
	c.Value = v
	if _, err := compileCond(c); err != nil {
		return c, err
	}
	return c, nil
}

// parseValue reads a condition's value: a quoted string, or a word that
// is a number, true, false, or else a string. A glob's is a string
// whatever it looks like: 1* is a glob, not a bad number.
func parseValue(l *lineReader, glob bool) (any, error) {
	if l.s[l.i] == '"' {
		start := l.i
		for l.i++; l.i < len(l.s) && l.s[l.i] != '"'; l.i++ {
			if l.s[l.i] == '\\' {
				l.i++
			}
		}
		if l.i >= len(l.s) {
			return nil, fmt.Errorf("the string %s is never closed by a \"", l.s[start:])
		}
		l.i++
		s, err := strconv.Unquote(l.s[start:l.i])
		if err != nil {
			return nil, fmt.Errorf("bad string %s: %w", l.s[start:l.i], err)
		}
		return s, nil
	}
	w := l.word("")
	switch {
	case glob:
		return w, nil
	case w == "true" || w == "false":
		return w == "true", nil
	case looksNumeric(w):
		return parseNumber(w)
	}
	return w, nil
}

// looksNumeric reports whether the word w was meant as a number: it
// starts with a digit, or a sign or a point before one. Such a word that
// is no number is an error, not a string.
func looksNumeric(w string) bool {
	w = strings.TrimLeft(w, "+-")
	w = strings.TrimPrefix(w, ".")
	return w != "" && w[0] >= '0' && w[0] <= '9'
}

// parseNumber reads a decimal number, such as 500, -2.5 or 1e6.
func parseNumber(w string) (float64, error) {
	if strings.Trim(w, "0123456789+-.eE") == "" {
		if f, err := strconv.ParseFloat(w, 64); err == nil {
			return f, nil
		}
	}
	return 0, fmt.Errorf("unparsable value %q: it starts as a number but is none (quote it for a string)", w)
}
