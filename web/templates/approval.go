package templates

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/sweatpants-go/sweatpants/backend/chat"
	"github.com/sweatpants-go/sweatpants/backend/elicit"
)

// The approval card's view of a tool call: its arguments as a reader
// takes them in, and what the call does in words.

// callArg is one argument of a tool call as the approval card shows it:
// its name (empty for arguments that are not an object), its value as
// text, and whether the value is folded behind its start.
type callArg struct {
	Name  string
	Value string
	// Block is set for a value shown as it is written, line for line: an
	// object or a list, as indented JSON.
	Block bool
	// Fold is set for a value too long to show whole at first: Start is
	// what shows.
	Fold  bool
	Start string
}

// foldAt is how long, in characters, a value shows whole; a longer one,
// or one of several lines, is folded behind its start.
const foldAt = 120

// callArgs reads the arguments of a tool call, as JSON, into what the card
// lists: an object's members in the order they were written, each value as
// a reader takes it (a string as its text, a number as written, an object
// or a list as indented JSON); anything else as one value. Arguments that
// are not JSON are shown as they are.
func callArgs(raw string) []callArg {
	raw = strings.TrimSpace(raw)
	dec := json.NewDecoder(strings.NewReader(raw))
	dec.UseNumber()
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return []callArg{argValue("", json.RawMessage(raw))}
	}
	var args []callArg
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return []callArg{argValue("", json.RawMessage(raw))}
		}
		name, _ := tok.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return []callArg{argValue("", json.RawMessage(raw))}
		}
		args = append(args, argValue(name, v))
	}
	return args
}

// argValue is one value of a tool call's arguments, as callArgs lists it.
func argValue(name string, v json.RawMessage) callArg {
	a := callArg{Name: name}
	var s string
	switch {
	case len(v) > 0 && v[0] == '"' && json.Unmarshal(v, &s) == nil:
		a.Value = s
	case len(v) > 0 && (v[0] == '{' || v[0] == '['):
		var buf bytes.Buffer
		if json.Indent(&buf, v, "", "  ") == nil {
			a.Value, a.Block = buf.String(), true
		} else {
			a.Value = string(v)
		}
	default:
		a.Value = string(v)
	}
	if utf8.RuneCountInString(a.Value) > foldAt || strings.Contains(a.Value, "\n") {
		a.Fold, a.Start = true, foldStart(a.Value)
	}
	return a
}

// foldStart is the start of a folded value: its first line, cut to fit a
// line of the card.
func foldStart(v string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(v), "\n")
	if r := []rune(line); len(r) > 60 {
		line = string(r[:60])
	}
	return strings.TrimRight(line, " ") + "…"
}

// effectWords say what each effect a tool declares means for the user.
var effectWords = map[string]string{
	"writes":  "changes data",
	"spends":  "spends money",
	"device":  "uses your device",
	"network": "reaches the internet",
}

// effectWord is what effect means for the user; an effect this page does
// not know is named as it is.
func effectWord(effect string) string {
	if w, ok := effectWords[effect]; ok {
		return w
	}
	return effect
}

// approvalOf returns the approval answered, for an approval card that was.
func approvalOf(e *chat.ElicitView) (elicit.Approval, bool) {
	var a elicit.Approval
	if e.Response == nil || e.Response.Action != elicit.Accept || json.Unmarshal(e.Response.Content, &a) != nil {
		return a, false
	}
	return a, true
}

// approvalSummary words an approval's answer: "Allowed once", "Denied:
// “not that one”".
func approvalSummary(a elicit.Approval) string {
	var s string
	switch a.Choice {
	case elicit.AllowOnce:
		s = "Allowed once"
	case elicit.AllowConversation:
		s = "Allowed for this conversation"
	case elicit.AllowAlways:
		s = "Always allowed"
	case elicit.DenyCall:
		s = "Denied"
		if a.Reason != "" {
			s += ": “" + a.Reason + "”"
		}
		return s
	default:
		return "Answered: " + a.Choice
	}
	if a.Args != "" {
		s += ", with the arguments you edited"
	}
	return s
}

// editorOpen reports whether an approval card shows its arguments' editor
// when drawn: after edited arguments were refused, so that they are there
// to fix.
func editorOpen(e *chat.ElicitView) bool {
	_, sent := e.Values["args"]
	return sent || e.Errors.For("args") != ""
}

// editedArgs are what an approval card's editor holds when drawn: the
// arguments last sent, else the call's own.
func editedArgs(e *chat.ElicitView, in elicit.ApprovalInput) string {
	if vs, ok := e.Values["args"]; ok && len(vs) > 0 {
		return vs[len(vs)-1]
	}
	return in.Args
}

// argsRows is how many rows the editor of args takes: as many as its
// lines, within bounds.
func argsRows(args string) string {
	return strconv.Itoa(min(max(strings.Count(args, "\n")+2, 3), 16))
}
