package templates

import (
	"encoding/json"
	"fmt"
	"sync"

	"github.com/a-h/templ"

	"github.com/sweatpants-go/sweatpants/backend/chat"
	"github.com/sweatpants-go/sweatpants/backend/elicit"
)

// ElicitComponent shows a pending request of one kind: its inputs and the
// button that accepts. The card around it shows the agent, the message, the
// queue, problems with the whole submission and the buttons that decline or
// cancel. conv is the conversation's id; AnswerAction(conv, e) is the
// Datastar action that posts a form inside the component as the answer.
type ElicitComponent func(conv string, e *chat.ElicitView) templ.Component

// kindComponents holds the components of the kinds an application declares,
// by kind name. Registration happens once, at start-up, before serving, so
// this is written once and read by every render afterwards.
var kindComponents = struct {
	sync.RWMutex
	byKind map[string]ElicitComponent
}{byKind: map[string]ElicitComponent{}}

// RegisterElicit makes c the browser component of the elicit kind named
// kind, for kinds an application declares itself; registering a kind again
// replaces its component (a server started twice in one process registers
// twice). It panics when the kind is built in, a programming error found at
// start-up. A kind with no component is shown as a plain form of its output
// schema.
func RegisterElicit(kind string, c ElicitComponent) {
	if _, ok := builtinComponent(kind); ok || kind == elicit.FormKind {
		panic("templates: elicit kind " + kind + " is built in")
	}
	kindComponents.Lock()
	defer kindComponents.Unlock()
	kindComponents.byKind[kind] = c
}

// builtinComponent returns the component of a built-in kind other than the
// form, which every kind without a component falls back on.
func builtinComponent(kind string) (ElicitComponent, bool) {
	switch kind {
	case elicit.Confirm.Name:
		return confirmAsk, true
	case elicit.Choose.Name:
		return choiceAsk, true
	case elicit.LocateDevice.Name:
		return locationAsk, true
	case elicit.ReadClipboard.Name:
		return clipboardReadAsk, true
	case elicit.WriteClipboard.Name:
		return clipboardWriteAsk, true
	}
	return nil, false
}

// askComponent is the component that shows a pending request of kind.
func askComponent(kind string) (ElicitComponent, bool) {
	if c, ok := builtinComponent(kind); ok {
		return c, true
	}
	kindComponents.RLock()
	defer kindComponents.RUnlock()
	c, ok := kindComponents.byKind[kind]
	return c, ok
}

// AnswerAction is the Datastar action that posts the form it is on as the
// answer to e: the fields by the names of e's output schema, the action in
// a submit button's "_action" (or a hidden field of that name). For a
// question already answered it posts a changed answer, which continues the
// conversation from there on a new branch: the same component serves both.
func AnswerAction(conv string, e *chat.ElicitView) string {
	if e.State == chat.Answered {
		return changeURL(conv, e)
	}
	return answerURL(conv, e)
}

// ElicitInput decodes the input of e's request into T, the input type of
// its kind; a request whose input does not decode yields T's zero value.
func ElicitInput[T any](e *chat.ElicitView) T {
	var in T
	if len(e.Request.Input) > 0 {
		json.Unmarshal(e.Request.Input, &in)
	}
	return in
}

// answerPath is where answers to e are posted, for the device glue.
func answerPath(conv string, e *chat.ElicitView) string {
	return fmt.Sprintf("/c/%s/elicits/%s", conv, e.Request.ID)
}
