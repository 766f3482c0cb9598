// Package terminal is what an application's terminal prompter of its own
// elicit kind sees and calls: the chat command asks each question at the
// terminal with the prompter of its kind, which reads the user's lines
// through the question's helpers and returns the answer. The application
// hands its prompters to the server by kind name (app.Config.Prompters).
//
// The package is apart from component, the browser's view of a question,
// because a prompter is a dialogue of lines where a component is drawn
// once: the two share the question's elicit.Request and nothing else, and
// a program asked only at a terminal imports no templ.
package terminal

import (
	"bufio"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/sweatpants-go/sweatpants/elicit"
)

// Question is one elicit as a prompter sees it: the request, and when the
// last answer was refused, what was wrong with it. A prompter reads lines
// through Line and Pick, which handle the keystrokes every question shares.
type Question struct {
	Request elicit.Request
	// Errors is set when the last answer was refused: what to fix. The
	// terminal has printed them already.
	Errors elicit.FieldErrors
	// Last is the refused answer, for prompters that keep what was right.
	Last *elicit.Response

	out      io.Writer
	read     func(label string) (string, error)
	progress func(elicit.Progress)
	bell     func() // rings the bell; nil writes BEL to out
}

// A lineReader reads a question's lines its own way: it shows the label,
// and keeps the prompt under whatever it prints meanwhile. The chat
// command's terminal is one, as its lines come from a conversation that
// goes on while the question is asked.
type lineReader interface {
	ReadLine(label string) (string, error)
}

// A progressReporter hears the progress a prompter reports on its
// question: the chat command's terminal passes it on to the agent.
type progressReporter interface {
	ReportProgress(p elicit.Progress)
}

// NewQuestion returns a question for req that reads its lines from in and
// writes to out, echoing each line read after its prompt: for testing a
// prompter without a conversation. Line returns io.EOF when in ends.
//
// An in with a method ReadLine(label string) (string, error) is read
// through it instead, and that method shows the label and echoes as it
// sees fit, and rings the bell through its method Bell() if it has one;
// one with a method ReportProgress(elicit.Progress) hears what Progress
// and Report report. The chat command asks its questions so.
func NewQuestion(req elicit.Request, in io.Reader, out io.Writer) *Question {
	q := &Question{Request: req, out: out}
	if pr, ok := in.(progressReporter); ok {
		q.progress = pr.ReportProgress
	}
	if lr, ok := in.(lineReader); ok {
		q.read = lr.ReadLine
		// Its out shows control characters as escapes: the bell is its
		// own to ring, or not rung at all.
		q.bell = func() {}
		if b, ok := in.(interface{ Bell() }); ok {
			q.bell = b.Bell
		}
		return q
	}
	sc := bufio.NewScanner(in)
	q.read = func(label string) (string, error) {
		fmt.Fprint(out, label)
		if !sc.Scan() {
			fmt.Fprintln(out)
			return "", cmp.Or(sc.Err(), io.EOF)
		}
		fmt.Fprintln(out, sc.Text())
		return sc.Text(), nil
	}
	return q
}

// Answer asks q with p and returns the answer, a keystroke or words off
// the script as the response they stand for.
func Answer(p Prompter, q *Question) (elicit.Response, error) {
	resp, err := p.Prompt(q)
	if r, ok := asResponse(err); ok {
		return r, nil
	}
	return resp, err
}

// answered is how Line and Pick report an answer that is not content: a
// keystroke (decline, cancel, refuse) or words off the script (other). The
// terminal turns it into the response; prompters return it as it is.
type answered struct {
	action elicit.Action
	text   string
}

func (a *answered) Error() string { return "answered " + string(a.action) }

// asResponse reports whether err is a keystroke or off-script answer, and
// the response it stands for.
func asResponse(err error) (elicit.Response, bool) {
	if a, ok := errors.AsType[*answered](err); ok {
		return elicit.Response{Action: a.action, Text: a.text}, true
	}
	return elicit.Response{}, false
}

// keystrokes are the lines that answer any question without content, in
// the order the hint lists them.
var keystrokes = []struct {
	line   string
	action elicit.Action
	does   string
}{
	{"/d", elicit.Decline, "declines"},
	{"/c", elicit.Cancel, "cancels"},
	{"/r", elicit.Denied, "refuses"},
}

// Hint lists the keystrokes this question allows, for printing under it.
func (q *Question) Hint() string {
	var parts []string
	for _, k := range keystrokes {
		if q.Request.Allows(k.action) {
			parts = append(parts, k.line+" "+k.does)
		}
	}
	if q.Request.Allows(elicit.Other) {
		parts = append(parts, "/o <words> answers in your own words")
	}
	return strings.Join(parts, " · ")
}

// Printf writes to the terminal.
func (q *Question) Printf(format string, args ...any) {
	fmt.Fprintf(q.out, format, args...)
}

// Problem prints a problem with what was just typed, marked as one, for
// a prompter to say before it asks again.
func (q *Question) Problem(format string, args ...any) {
	q.Printf("  ! "+format+"\n", args...)
}

// Line shows label and reads one line, trimmed. A keystroke line (/d, /c,
// /r, /o words) the request allows comes back as an error standing for that
// answer, which the prompter returns as it is; one it does not allow is
// refused here and the line asked again. It also returns io.EOF when the
// input ends and an error when the question is withdrawn meanwhile.
func (q *Question) Line(label string) (string, error) { return q.line(label, false) }

// PathLine is Line for a path: a line that begins with / and is no
// keystroke is a path, returned as typed.
func (q *Question) PathLine(label string) (string, error) { return q.line(label, true) }

func (q *Question) line(label string, paths bool) (string, error) {
	for {
		line, err := q.read(label)
		if err != nil {
			return "", err
		}
		line = strings.TrimSpace(line)
		if !strings.HasPrefix(line, "/") {
			return line, nil
		}
		cmd, rest, _ := strings.Cut(line, " ")
		rest = strings.TrimSpace(rest)
		if _, ok := keystroke(cmd); paths && !ok && !isCommand(cmd) {
			return line, nil
		}
		switch {
		case cmd == "/o":
			if !q.Request.Allows(elicit.Other) {
				q.Problem("This question cannot be answered in your own words.")
			} else if rest == "" {
				q.Problem("Write your words after /o.")
			} else {
				return "", &answered{action: elicit.Other, text: rest}
			}
			continue
		case isCommand(cmd): // help, /o being the case above
			q.Printf("  %s\n", q.Hint())
			continue
		}
		if a, ok := keystroke(cmd); ok && rest == "" {
			if q.Request.Allows(a) {
				return "", &answered{action: a}
			}
			q.Problem("This question cannot be answered with %s (%s). %s", cmd, a, q.Hint())
			continue
		}
		q.Problem("%s is not a command here. %s", line, q.Hint())
	}
}

// isCommand reports whether cmd is a command every question takes besides
// the keystrokes: /o words, or help.
func isCommand(cmd string) bool {
	switch cmd {
	case "/o", "/?", "/h", "/help":
		return true
	}
	return false
}

func keystroke(line string) (elicit.Action, bool) {
	for _, k := range keystrokes {
		if k.line == line {
			return k.action, true
		}
	}
	return "", false
}

// Pick shows options numbered from 1 and reads which one the user picks:
// its number or its text. Anything else is words off the script: the answer
// other when the request allows it, else refused and asked again.
func (q *Question) Pick(label string, options []string) (int, error) {
	for i, o := range options {
		q.Printf("  %d) %s\n", i+1, o)
	}
	for {
		line, err := q.Line(fmt.Sprintf("%s [1-%d]: ", label, len(options)))
		if err != nil {
			return -1, err
		}
		if i, ok := pickIndex(line, options); ok {
			return i, nil
		}
		if _, err := strconv.Atoi(line); err != nil && line != "" && q.Request.Allows(elicit.Other) {
			return -1, &answered{action: elicit.Other, text: line}
		}
		q.Problem("Type a number from 1 to %d.", len(options))
	}
}

// pickIndex reads line as an option's number or text.
func pickIndex(line string, options []string) (int, bool) {
	if n, err := strconv.Atoi(line); err == nil {
		return n - 1, n >= 1 && n <= len(options)
	}
	for i, o := range options {
		if line != "" && strings.EqualFold(line, o) {
			return i, true
		}
	}
	return -1, false
}

// Progress reports a step the terminal takes on the question (asking for a
// permission, acquiring a fix) to the agent that asked, if it listens.
func (q *Question) Progress(stage string) {
	if q.progress != nil {
		q.progress(elicit.Progress{Stage: stage})
	}
}

// Report reports typed progress on the question, for a method (package
// protocol) that declares its progress: data is the report's data, which
// the server checks against the method's progress schema, and its "status"
// or "stage" field names the report's stage (elicit.ProgressOf). It
// returns the error of the encoding only: what the agent makes of the
// report is not the prompter's concern.
func (q *Question) Report(data any) error {
	p, err := elicit.ProgressOf(data)
	if err != nil {
		return fmt.Errorf("%s: %w", q.Request.Kind, err)
	}
	if q.progress != nil {
		q.progress(p)
	}
	return nil
}

// Bell rings the terminal's bell, for a prompter whose question should
// catch the user's ear (a notification). A question made with NewQuestion
// writes the bell to its out; the chat command's terminal, which shows
// every control character a prompter prints as an escape, rings it when
// its line reader has a method Bell().
func (q *Question) Bell() {
	if q.bell != nil {
		q.bell()
		return
	}
	fmt.Fprint(q.out, "\a")
}

// Input decodes the request's input into v.
func (q *Question) Input(v any) error {
	if len(q.Request.Input) == 0 {
		return nil
	}
	if err := json.Unmarshal(q.Request.Input, v); err != nil {
		return fmt.Errorf("decode %s input: %w", q.Request.Kind, err)
	}
	return nil
}

// Accept returns the response accepting content.
func Accept(content any) (elicit.Response, error) {
	raw, err := json.Marshal(content)
	if err != nil {
		return elicit.Response{}, fmt.Errorf("encode answer: %w", err)
	}
	return elicit.Response{Action: elicit.Accept, Content: raw}, nil
}
