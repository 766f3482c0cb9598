package words

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/sweatpants-go/sweatpants/elicit"
	"github.com/sweatpants-go/sweatpants/internal/tree"
)

// Tool calls in words, as the approval card, the terminal, the inspector
// and the audit page say them: the arguments by name, what a tool does,
// what the user chose, and who let a call run or stopped it.

// Arg is one argument of a tool call as a reader takes it in: its name
// (empty for arguments that are not an object) and its value as text.
type Arg struct {
	Name  string
	Value string
	// Block is set for a value shown as written, line for line: an object
	// or a list, as indented JSON.
	Block bool
}

// Args reads a tool call's arguments, JSON, into what a reader is shown:
// an object's members in the order they were written, each value as a
// reader takes it (a string as its text, a number as written, an object or
// a list as indented JSON); anything else as one value. Arguments that are
// not JSON are shown as they are; none (an empty object) is an empty list.
func Args(raw string) []Arg {
	raw = strings.TrimSpace(raw)
	whole := []Arg{argOf("", json.RawMessage(raw))}
	dec := json.NewDecoder(strings.NewReader(raw))
	dec.UseNumber()
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return whole
	}
	var args []Arg
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return whole
		}
		name, _ := tok.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return whole
		}
		args = append(args, argOf(name, v))
	}
	return args
}

// argOf is one value of a tool call's arguments, as Args lists it.
func argOf(name string, v json.RawMessage) Arg {
	a := Arg{Name: name, Value: string(v)}
	var s string
	switch {
	case len(v) > 0 && v[0] == '"' && json.Unmarshal(v, &s) == nil:
		a.Value = s
	case len(v) > 0 && (v[0] == '{' || v[0] == '['):
		var buf bytes.Buffer
		if json.Indent(&buf, v, "", "  ") == nil {
			a.Value, a.Block = buf.String(), true
		}
	}
	return a
}

// effects say what each effect a tool declares (policy.Effect, by name)
// means for the user.
var effects = map[string]string{
	"writes":  "changes data",
	"spends":  "spends money",
	"device":  "uses your device",
	"network": "reaches the internet",
}

// Effect says what a tool's effect means for the user: "changes data" for
// writes. An effect it does not know is named as it is.
func Effect(effect string) string {
	if w, ok := effects[effect]; ok {
		return w
	}
	return effect
}

// Approval says what the user chose on an approval: "Allowed once",
// "Allowed for this conversation, with the arguments you edited",
// "Denied: “too dear”".
func Approval(a elicit.Approval) string {
	var s string
	switch a.Choice {
	case elicit.AllowOnce:
		s = "Allowed once"
	case elicit.AllowConversation:
		s = "Allowed for this conversation"
	case elicit.AllowAlways:
		s = "Always allowed"
	case elicit.DenyCall:
		if a.Reason != "" {
			return "Denied: “" + a.Reason + "”"
		}
		return "Denied"
	default:
		return "Answered: " + a.Choice
	}
	if a.Args != "" {
		s += ", with the arguments you edited"
	}
	return s
}

// DecidedBy says who decided a tool call, from its record: "rule “deny
// flights/cancel* (policy.rules:3)”", "you", "your earlier choice", "the
// default", "nobody (no one could approve)", "nobody in time (the
// approval expired)", "the allow it began under, before a restart" (a
// call the guard resumed as it began). Empty for a call recorded before
// the policy.
func DecidedBy(r tree.ToolRecord) string {
	switch r.DecidedBy {
	case "":
		return ""
	case "rule":
		return "rule “" + r.Rule + "”"
	case "user":
		return "you"
	case "remembered":
		if r.Rule != "" {
			return "your earlier choice (" + r.Rule + ")"
		}
		return "your earlier choice"
	case "default":
		return "the default"
	case "unattended":
		return "nobody (no one could approve)"
	case "expired":
		return "nobody in time (the approval expired)"
	case "resumed":
		return "the allow it began under, before a restart"
	}
	return r.DecidedBy
}

// Decision says how a tool call was decided, in a line: "allowed by rule
// “allow flights/search”", "denied by you", "denied: no one could
// approve", "denied: the approval expired, nobody answered in time",
// "not decided: the turn stopped while it asked". Empty for a call
// recorded before the policy.
func Decision(r tree.ToolRecord) string {
	if r.Decision == "" {
		return ""
	}
	verdict := "allowed"
	switch {
	case r.Decision == "finalDeny":
		verdict = "denied for good"
	case r.Decision == "deny" || r.Outcome == "denied":
		verdict = "denied"
	}
	if r.DecidedBy == "unattended" {
		if r.Outcome == "cancelled" {
			// The turn ended (a stop) while the call was asked about.
			return "not decided: the turn stopped while it asked"
		}
		return verdict + ": no one could approve"
	}
	if r.DecidedBy == "expired" {
		return verdict + ": the approval expired, nobody answered in time"
	}
	if by := DecidedBy(r); by != "" {
		return verdict + " by " + by
	}
	return verdict
}

// Duration says how long a tool call ran, given in microseconds as the
// record keeps it: "850 µs", "12 ms", "1.4 s".
func Duration(us int64) string {
	d := time.Duration(us) * time.Microsecond
	switch {
	case d < time.Millisecond:
		return fmt.Sprintf("%d µs", us)
	case d < time.Second:
		return fmt.Sprintf("%d ms", d.Milliseconds())
	case d < time.Minute:
		return fmt.Sprintf("%.1f s", d.Seconds())
	}
	return d.Round(time.Second).String()
}
