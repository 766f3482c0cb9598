package templates

import (
	"encoding/json"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/sweatpants-go/sweatpants/elicit"
	"github.com/sweatpants-go/sweatpants/internal/pageview"
	"github.com/sweatpants-go/sweatpants/internal/words"
)

// The approval card's view of a tool call: its arguments as a reader
// takes them in (words.Args), a long value folded behind its start.

// callArg is one argument of a tool call as a card shows it, and whether
// its value is folded behind its start.
type callArg struct {
	words.Arg
	Fold  bool
	Start string
}

// foldAt is how long, in characters, a value shows whole; a longer one,
// or one of several lines, is folded behind its start.
const foldAt = 120

// callArgs lists the arguments of a tool call, JSON, as a card shows them.
func callArgs(raw string) []callArg {
	args := words.Args(raw)
	out := make([]callArg, len(args))
	for i, a := range args {
		out[i] = callArg{Arg: a}
		if utf8.RuneCountInString(a.Value) > foldAt || strings.Contains(a.Value, "\n") {
			out[i].Fold, out[i].Start = true, foldStart(a.Value)
		}
	}
	return out
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

// approvalOf returns the approval answered, for an approval card that was.
func approvalOf(e *pageview.ElicitView) (elicit.Approval, bool) {
	var a elicit.Approval
	if e.Response == nil || e.Response.Action != elicit.Accept || json.Unmarshal(e.Response.Content, &a) != nil {
		return a, false
	}
	return a, true
}

// editorOpen reports whether an approval card shows its arguments' editor
// when drawn: after edited arguments were refused, so that they are there
// to fix.
func editorOpen(e *pageview.ElicitView) bool {
	_, sent := e.Values["args"]
	return sent || e.Errors.For("args") != ""
}

// editedArgs are what an approval card's editor holds when drawn: the
// arguments last sent, else the call's own that the user may edit.
func editedArgs(e *pageview.ElicitView, in elicit.ApprovalInput) string {
	if vs, ok := e.Values["args"]; ok && len(vs) > 0 {
		return vs[len(vs)-1]
	}
	return in.Shown()
}

// argsRows is how many rows the editor of args takes: as many as its
// lines, within bounds.
func argsRows(args string) string {
	return strconv.Itoa(min(max(strings.Count(args, "\n")+2, 3), 16))
}
