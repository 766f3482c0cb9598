package templates

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/a-h/templ"

	"github.com/sweatpants-go/sweatpants/elicit"
	"github.com/sweatpants-go/sweatpants/internal/chat"
)

// ElicitComponent shows a pending request of one kind: its inputs and the
// button that accepts. The card around it shows the agent, the message, the
// queue, problems with the whole submission and the buttons that decline or
// cancel. conv is the conversation's id; AnswerAction(conv, e) is the
// Datastar action that posts a form inside the component as the answer.
type ElicitComponent func(conv string, e *chat.ElicitView) templ.Component

// ElicitComponents are the browser components of the elicit kinds an
// application declares itself, by kind name. A kind without one is shown
// as a plain form of its output schema; the built-in kinds have theirs,
// which an entry of the same name does not replace.
type ElicitComponents map[string]ElicitComponent

type componentsKey struct{}

// WithElicitComponents returns ctx carrying cs, for the pages and patches
// rendered with it: the transport puts an application's components into
// every request's context.
func WithElicitComponents(ctx context.Context, cs ElicitComponents) context.Context {
	return context.WithValue(ctx, componentsKey{}, cs)
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
	case elicit.AskFile.Name:
		return fileAsk, true
	case elicit.Approve.Name:
		return approvalAsk, true
	}
	return nil, false
}

// askComponent is the component that shows a pending request of kind: a
// built-in one, else the application's from ctx.
func askComponent(ctx context.Context, kind string) (ElicitComponent, bool) {
	if c, ok := builtinComponent(kind); ok {
		return c, true
	}
	cs, _ := ctx.Value(componentsKey{}).(ElicitComponents)
	c, ok := cs[kind]
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

// deviceAnswerPath is where the device glue posts an answer to e: a
// changed one when e is answered (as AnswerAction for forms).
func deviceAnswerPath(conv string, e *chat.ElicitView) string {
	if e.State == chat.Answered {
		return answerPath(conv, e) + "/change"
	}
	return answerPath(conv, e)
}
