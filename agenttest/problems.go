package agenttest

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"
)

// ScriptError is a run that did not go as its script says: each problem
// in words, and, when the run was in process, what happened (Transcript).
type ScriptError struct {
	Problems   []string
	Transcript *Transcript
}

func (e *ScriptError) Error() string {
	var b strings.Builder
	b.WriteString("the run did not follow the script:")
	for _, p := range e.Problems {
		b.WriteString("\n  - " + p)
	}
	if e.Transcript != nil {
		b.WriteString("\nwhat happened:")
		for line := range strings.Lines(e.Transcript.String()) {
			b.WriteString("\n    " + strings.TrimSuffix(line, "\n"))
		}
	}
	return b.String()
}

// stop is the error a scripted model or user returns when its call breaks
// the script: the problem is recorded, and the turn ends there. It ends
// the turn even inside a tool (agents.EndsTurn), where any other error goes
// back to the model, which would carry on and bury the problem.
type stop struct{ problem string }

func (e *stop) Error() string  { return "agenttest: " + e.problem }
func (e *stop) EndsTurn() bool { return true }

// isStop reports whether err is a script's problem ending the turn.
func isStop(err error) bool {
	_, ok := errors.AsType[*stop](err)
	return ok
}

// clip shortens text for a problem or a transcript line, which it keeps
// on one line.
func clip(text string) string {
	const most = 100
	text = strings.Join(strings.Fields(text), " ")
	if utf8.RuneCountInString(text) <= most {
		return text
	}
	return string([]rune(text)[:most-1]) + "…"
}

// plural writes n of unit: "1 step", "2 steps".
func plural(n int, unit string) string {
	if n == 1 {
		return "1 " + unit
	}
	return fmt.Sprintf("%d %ss", n, unit)
}

// times writes how often something happened: "never", "once", "3 times".
func times(n int) string {
	switch n {
	case 0:
		return "never"
	case 1:
		return "once"
	}
	return fmt.Sprintf("%d times", n)
}

// ordinal writes n as "1st", "2nd", "3rd", "4th".
func ordinal(n int) string {
	suffix := "th"
	switch {
	case n%100 >= 11 && n%100 <= 13:
	case n%10 == 1:
		suffix = "st"
	case n%10 == 2:
		suffix = "nd"
	case n%10 == 3:
		suffix = "rd"
	}
	return fmt.Sprintf("%d%s", n, suffix)
}
