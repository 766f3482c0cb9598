package sampling

import (
	"context"
	"encoding/json"
	"regexp"
	"strings"

	"github.com/sweatpants-go/sweatpants/middleware"
)

// RepairJSON returns a child context in which a reply to a request that
// asked for JSON (its Output set) is repaired before anything reads it, if
// it does not parse as it is: the JSON inside a code fence is taken, prose
// around the value is dropped (the first balanced object or array that
// can be read is kept), trailing commas are removed, and simple
// single-quoted strings are double-quoted. A reply that parses is left
// alone, and so is one no repair makes readable: the repair only removes
// and requotes, it never invents content. It runs at the output stage with
// Min priority, nearest the model call, so that every other output
// middleware (SampleAs's reading of the value among them) sees the
// repaired reply.
func RepairJSON(ctx context.Context) context.Context {
	return middleware.SampleOutput.Around(ctx, func(next middleware.Handler[middleware.Sampled, middleware.Sampled]) middleware.Handler[middleware.Sampled, middleware.Sampled] {
		return func(ctx context.Context, s middleware.Sampled) (middleware.Sampled, error) {
			if s.Prompt.Request.Output != nil {
				if fixed, ok := Repair(s.Response.Content); ok {
					s.Response.Content = fixed
				}
			}
			return next(ctx, s)
		}
	}, middleware.Min)
}

// fenceRE matches a Markdown code fence and its body.
var fenceRE = regexp.MustCompile("(?s)```[A-Za-z0-9_-]*[ \t]*\r?\n?(.*?)```")

// Repair returns reply made into one JSON object or array, and whether it
// changed it; see RepairJSON. A reply that already parses comes back
// unchanged with false.
func Repair(reply string) (string, bool) {
	if json.Valid([]byte(reply)) {
		return reply, false
	}
	candidates := []string{}
	for _, m := range fenceRE.FindAllStringSubmatch(reply, -1) {
		candidates = append(candidates, m[1])
	}
	candidates = append(candidates, reply)
	for _, c := range candidates {
		if v, ok := firstValue(c); ok {
			return v, true
		}
	}
	return reply, false
}

// firstValue returns the first balanced object or array in s that parses,
// as it is or after fixing its trailing commas and single quotes.
func firstValue(s string) (string, bool) {
	if t := strings.TrimSpace(s); json.Valid([]byte(t)) && (strings.HasPrefix(t, "{") || strings.HasPrefix(t, "[")) {
		return t, true
	}
	for i := 0; i < len(s); i++ {
		if s[i] != '{' && s[i] != '[' {
			continue
		}
		end, ok := balanced(s, i)
		if !ok {
			continue
		}
		v := s[i:end]
		if json.Valid([]byte(v)) {
			return v, true
		}
		if fixed, ok := fixTokens(v); ok && json.Valid([]byte(fixed)) {
			return fixed, true
		}
	}
	return "", false
}

// balanced returns the end of the object or array that starts at s[start],
// skipping brackets inside strings of either quote; false when it is never
// closed or a closing bracket does not match.
func balanced(s string, start int) (int, bool) {
	var stack []byte
	var quote byte
	for i := start; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0:
			if c == '\\' {
				i++
			} else if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'' && singleQuoteOpens(s, i):
			quote = c
		case c == '{' || c == '[':
			stack = append(stack, c)
		case c == '}' || c == ']':
			if len(stack) == 0 || stack[len(stack)-1] != opener(c) {
				return 0, false
			}
			stack = stack[:len(stack)-1]
			if len(stack) == 0 {
				return i + 1, true
			}
		}
	}
	return 0, false
}

func opener(c byte) byte {
	if c == '}' {
		return '{'
	}
	return '['
}

// singleQuoteOpens reports whether the ' at s[i] can open a string: it
// follows a bracket, a colon or a comma, as a JSON string would. An
// apostrophe in a bare word ("don't") does not.
func singleQuoteOpens(s string, i int) bool {
	j := i - 1
	for j >= 0 && isSpace(s[j]) {
		j--
	}
	return j >= 0 && strings.IndexByte("{[:,", s[j]) >= 0
}

// fixTokens removes trailing commas from v and turns its single-quoted
// strings into double-quoted ones. A single-quoted string is turned only
// when it is simple: no double quote and no backslash inside, so that
// requoting cannot change what it says. It reports false when v has a
// single-quoted string that is not simple.
func fixTokens(v string) (string, bool) {
	var b strings.Builder
	for i := 0; i < len(v); i++ {
		c := v[i]
		switch {
		case c == '"':
			end := stringEnd(v, i, '"')
			if end > len(v) {
				return v, false
			}
			b.WriteString(v[i:end])
			i = end - 1
		case c == '\'' && singleQuoteOpens(v, i):
			end := stringEnd(v, i, '\'')
			if end > len(v) || strings.ContainsAny(v[i+1:end-1], "\"\\") {
				return v, false
			}
			body := v[i+1 : end-1]
			b.WriteString(`"` + body + `"`)
			i = end - 1
		case c == ',' && closesNext(v, i+1):
			// A trailing comma: dropped.
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), true
}

// stringEnd returns the index just past the string that opens with quote at
// v[start], or len(v)+1 when it is never closed.
func stringEnd(v string, start int, quote byte) int {
	for i := start + 1; i < len(v); i++ {
		switch v[i] {
		case '\\':
			i++
		case quote:
			return i + 1
		}
	}
	return len(v) + 1
}

// closesNext reports whether the next character of v from i that is not
// white space closes an object or array.
func closesNext(v string, i int) bool {
	for i < len(v) && isSpace(v[i]) {
		i++
	}
	return i < len(v) && (v[i] == '}' || v[i] == ']')
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }
