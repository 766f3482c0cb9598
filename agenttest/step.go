package agenttest

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/sweatpants-go/sweatpants/llm"
)

// ModelStep is one answer of a scripted model: words (Reply), tool calls
// (Call) or a failure (Fail), with what the call it answers must have been
// asked (WhenAsked, Check).
type ModelStep struct {
	text   string
	calls  []llm.ToolCall
	fail   error
	expect []expectation
	broken string // why the step could not be written, such as arguments that do not marshal
}

// expectation is what a step checks of the request it answers: "" when
// it holds, else what is wrong.
type expectation func(llm.Request) string

// Reply is a step where the model answers in words.
func Reply(text string) ModelStep { return ModelStep{text: text} }

// Call is a step where the model calls the tool named name with args,
// marshalled to JSON as the tool's input: a struct, a map, a string for a
// tool whose input is text, agents.AskUserInput for ask_user. A
// json.RawMessage is sent as written, for arguments a model gets wrong.
// The call's id is call-1, call-2, ... in the order of the script.
func Call(name string, args any) ModelStep { return ModelStep{}.Call(name, args) }

// Call adds one more call to the step: a model calling several tools at
// once.
func (s ModelStep) Call(name string, args any) ModelStep {
	raw, ok := args.(json.RawMessage)
	if !ok {
		var err error
		if raw, err = json.Marshal(args); err != nil {
			s.broken = fmt.Sprintf("the arguments of %s do not marshal: %v", name, err)
		}
	}
	s.calls = append(s.calls[:len(s.calls):len(s.calls)], llm.ToolCall{Name: name, Arguments: string(raw)})
	return s
}

// Fail is a step where the model call fails with err, such as an
// *llm.Error, for a test of how the turn copes.
func Fail(err error) ModelStep { return ModelStep{fail: err} }

// WhenAsked has the step check that the last message of the request it
// answers contains text: the model is answering what the test thinks.
func (s ModelStep) WhenAsked(text string) ModelStep {
	return s.expecting(func(req llm.Request) string {
		if len(req.Messages) > 0 && strings.Contains(req.Messages[len(req.Messages)-1].Content, text) {
			return ""
		}
		return fmt.Sprintf("the last message does not contain %q; it is %s", text, lastMessage(req))
	})
}

// Check has the step check the request it answers with fn, whose error
// says what is wrong with it.
func (s ModelStep) Check(fn func(req llm.Request) error) ModelStep {
	return s.expecting(func(req llm.Request) string {
		if err := fn(req); err != nil {
			return err.Error()
		}
		return ""
	})
}

func (s ModelStep) expecting(e expectation) ModelStep {
	s.expect = append(s.expect[:len(s.expect):len(s.expect)], e)
	return s
}

// problem says which expectation of the step req does not meet, or "".
func (s ModelStep) problem(req llm.Request) string {
	for _, e := range s.expect {
		if p := e(req); p != "" {
			return p
		}
	}
	return ""
}

// String names the step as the problems do: Reply "…", Call weather("Lisbon").
func (s ModelStep) String() string {
	switch {
	case s.fail != nil:
		return fmt.Sprintf("Fail %q", s.fail.Error())
	case len(s.calls) > 0:
		return "Call " + callsText(s.calls)
	}
	return fmt.Sprintf("Reply %q", clip(s.text))
}

// callsText writes tool calls as name(arguments), joined.
func callsText(calls []llm.ToolCall) string {
	parts := make([]string, len(calls))
	for i, c := range calls {
		parts[i] = c.Name + "(" + clip(c.Arguments) + ")"
	}
	return strings.Join(parts, ", ")
}
